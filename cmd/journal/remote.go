package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/journalfs/journal/journal"
	"github.com/journalfs/journal/journal/audit"
	"github.com/journalfs/journal/journal/remote"
	"github.com/spf13/cobra"
)

func newRemoteCmd(a *app) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "remote",
		Short: "Name the S3 locations journals are pushed to and cloned from",
		Long: `remote keeps this user's remotes (in ` + "`os.UserConfigDir()/journal/remotes.json`" + `): a name, an s3://bucket/prefix URL, an
optional endpoint (MinIO, Ceph, R2, versitygw...) and region. Credentials are never stored: they come from the
standard AWS chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws, web identity, instance
roles). Every workspace replicating to one bucket and prefix shares its contents, stored once.`,
	}
	var endpoint, region, retain, keys string
	var encrypt, plain bool
	add := &cobra.Command{
		Use:   "add NAME s3://bucket/prefix",
		Short: "Add (or replace) a remote",
		Long: `add names an S3 location. With --keys s3://other-bucket/prefix the remote is encrypted: chunks, manifests and
events' arguments are sealed with keys kept in that key store (another bucket, without Object Lock), never in the
data bucket, and ` + "`journal redact`" + ` (or the push that carries the redaction) destroys the keys of what it takes
out: the sealed objects stay, and no longer open for anyone. A --retain remote is encrypted unless --plain says
otherwise: what Object Lock keeps cannot be deleted, only made unreadable.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case encrypt && keys == "":
				return usageError{errors.New("--encrypt needs --keys s3://another-bucket/prefix: the key store, outside the data bucket")}
			case plain && keys != "":
				return usageError{errors.New("--plain and --keys: choose one (--keys encrypts)")}
			case retain != "" && keys == "" && !plain:
				return withHint(usageError{fmt.Errorf("--retain %s without --keys: every object would stay under Object Lock for %s, and a secret pushed there could never be taken out", retain, retain)},
					"add --keys s3://another-bucket/prefix to encrypt (a redaction then shreds the keys), or --plain to keep the objects readable for the retention")
			}
			r := remote.Remote{Name: args[0], URL: args[1], Endpoint: endpoint, Region: region, Retain: retain, Keys: keys}
			if err := remote.Add(r); err != nil {
				return remoteErr(err)
			}
			fmt.Fprintf(a.out, "remote %s: %s%s\n", r.Name, r.URL, describeEndpoint(r))
			return nil
		},
	}
	add.Flags().StringVar(&endpoint, "endpoint", "", "the S3 endpoint URL (default: AWS)")
	add.Flags().StringVar(&region, "region", "", "the region (default: the AWS chain's, else us-east-1)")
	add.Flags().StringVar(&retain, "retain", "", "keep every object a push writes under Object Lock (compliance) this long: 90d, 7y (the bucket must have Object Lock; needs --keys or --plain)")
	add.Flags().StringVar(&keys, "keys", "", "encrypt what is pushed, with keys kept in this key store: s3://another-bucket/prefix (same endpoint; a redaction shreds them)")
	add.Flags().BoolVar(&encrypt, "encrypt", false, "encrypt (the default with --keys; needs it)")
	add.Flags().BoolVar(&plain, "plain", false, "with --retain: do not encrypt (what is pushed stays readable, and locked, for the retention)")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the remotes",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rs, err := remote.List()
			if err != nil {
				return remoteErr(err)
			}
			if len(rs) == 0 {
				fmt.Fprintln(a.out, "no remotes (journal remote add NAME s3://bucket/prefix)")
				return nil
			}
			tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
			for _, r := range rs {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, r.URL, strings.TrimPrefix(describeEndpoint(r), " "))
			}
			return tw.Flush()
		},
	}
	rm := &cobra.Command{
		Use:   "remove NAME",
		Short: "Forget a remote (its objects stay where they are)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return remoteErr(remote.Remove(args[0]))
		},
	}
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "List the workspaces on a remote: their IDs (for clone), events, last push",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := openRemote(ctx, args[0])
			if err != nil {
				return remoteErr(err)
			}
			heads, err := remote.Heads(ctx, s)
			if err != nil {
				return remoteErr(err)
			}
			if len(heads) == 0 {
				fmt.Fprintf(a.out, "no workspace on %s yet (journal push %s)\n", args[0], args[0])
				return nil
			}
			mine := ""
			if a.locate() == nil {
				a.view(func(tx *journal.Tx) error { mine = tx.Workspace(); return nil })
			}
			tw := tabwriter.NewWriter(a.out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "WORKSPACE\tEVENTS\tLAST PUSH\t")
			for _, h := range heads {
				note := ""
				if h.Workspace == mine {
					note = "(this workspace)"
				}
				fmt.Fprintf(tw, "%s\t%d-%d\t%s\t%s\n", h.Workspace, h.BaseSeq+1, h.Last, h.Updated.Local().Format("2006-01-02 15:04:05"), note)
			}
			return tw.Flush()
		},
	}
	cmd.AddCommand(add, list, rm, show)
	return cmd
}

func describeEndpoint(r remote.Remote) string {
	var s string
	if r.Endpoint != "" {
		s += " (endpoint " + r.Endpoint + ")"
	}
	if r.Region != "" {
		s += " (region " + r.Region + ")"
	}
	if r.Retain != "" {
		s += " (retain " + r.Retain + ", Object Lock)"
	}
	if r.Keys != "" {
		s += " (encrypted, keys in " + r.Keys + ")"
	}
	return s
}

// remoteErr adds the next step to a remote's errors.
func remoteErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, remote.ErrUsage):
		return usageError{err}
	case errors.Is(err, remote.ErrAuth):
		return withHint(err, "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) for this storage")
	case errors.Is(err, remote.ErrNoBucket):
		return withHint(err, "`journal remote list` shows the URL and endpoint in use")
	case errors.Is(err, remote.ErrUnreachable):
		return withHint(err, "nothing was lost: run the command again once the storage answers")
	case errors.Is(err, remote.ErrConflict):
		return withHint(err, "one workspace, one writer: push from the workspace that owns it (a clone takes over once the original stops)")
	}
	return err
}

// openRemote opens the remote named name (or the only one, when name is "").
func openRemote(ctx context.Context, name string) (*remote.Store, error) {
	if name == "" {
		rs, err := remote.List()
		if err != nil {
			return nil, err
		}
		switch len(rs) {
		case 0:
			return nil, fmt.Errorf("remote: no remote is configured (journal remote add NAME s3://bucket/prefix): %w", remote.ErrUsage)
		case 1:
		default:
			return nil, fmt.Errorf("remote: name the remote (%d are configured; journal remote list): %w", len(rs), remote.ErrUsage)
		}
		name = rs[0].Name
	}
	r, err := remote.Lookup(name)
	if err != nil {
		return nil, err
	}
	return remote.Open(ctx, r)
}

func newPushCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "push [REMOTE]",
		Short: "Send a remote the events and contents it lacks",
		Long: `push sends the remote what it lacks of this journal: the contents its new events name (chunks another
workspace sent already are not sent again), then the events, as segments that continue the hash chain, moving the
workspace's head with a conditional write. An interrupted push resumes where it stopped; a push to an up-to-date
remote sends nothing. A second writer for one workspace (a copy of it pushing too) is refused.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			s, err := openRemote(ctx, name)
			if err != nil {
				return remoteErr(err)
			}
			e, err := a.engine() // finishes what a crash left and what the write-ahead log holds
			if err != nil {
				return err
			}
			defer e.Close()
			progress, done := a.remoteProgress("push")
			rep, err := remote.Push(ctx, s, e.Journal(), remote.PushOptions{Progress: progress, Repository: gitRepository(a.wsDir)})
			done()
			if err != nil {
				return remoteErr(err)
			}
			r := s.Remote()
			// where the remote stands, for journal status and gc
			e.Journal().WriteReplication(journal.Replication{Remote: r.Name, Workspace: rep.Workspace, Pushed: rep.Head,
				PushedAt: time.Now().UTC(), PID: os.Getpid()})
			if rep.Checkpoints > 0 {
				defer fmt.Fprintf(a.out, "sent %d signed checkpoint(s)\n", rep.Checkpoints)
			}
			if sh := rep.Shred; sh != nil {
				fmt.Fprintf(a.out, "shredded on %s the keys of %d event(s)' arguments and %d content(s) the events pushed redact (%d key file(s) rewritten, %d older version(s) deleted)\n",
					sh.Remote, sh.Events, sh.Contents, sh.Rewritten, sh.Versions)
			}
			if rep.From == 0 {
				fmt.Fprintf(a.out, "%s is up to date (workspace %s)\n", r.Name, rep.Workspace)
				return nil
			}
			fmt.Fprintf(a.out, "pushed events %d-%d to %s (workspace %s): %d segment(s), %d content(s) and %d chunk(s) sent, %s; %d content(s) and %d chunk(s) were there already\n",
				rep.From, rep.To, r.Name, rep.Workspace, rep.Segments, rep.Contents, rep.Chunks, humanBytes(rep.Bytes), rep.ContentsThere, rep.ChunksThere)
			if rep.MissingContents > 0 {
				fmt.Fprintf(a.out, "note: %d content(s) the events name are not in this journal (dropped by gc or lost to damage) and were not sent\n", rep.MissingContents)
			}
			return nil
		},
	}
}

func newCloneCmd(a *app) *cobra.Command {
	var ws string
	var at uint64
	cmd := &cobra.Command{
		Use:   "clone REMOTE --workspace ID DIR",
		Short: "Rebuild a workspace and its journal from a remote, in a new directory",
		Long: `clone rebuilds workspace ID from the remote in DIR: a journal holding its events (each checked against
its hash and the chain, each content against its ID) and its files as they were after the newest event, or
after event N with --at N. ` + "`journal remote show REMOTE`" + ` lists the workspaces. The clone keeps the
workspace's ID: push from it to carry the workspace on once the original has stopped.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if ws == "" {
				return usageError{errors.New("clone needs --workspace ID (journal remote show " + args[0] + " lists them)")}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			s, err := openRemote(ctx, args[0])
			if err != nil {
				return remoteErr(err)
			}
			progress, done := a.remoteProgress("clone")
			rep, err := remote.Clone(ctx, s, ws, args[1], remote.CloneOptions{At: at, Progress: progress})
			done()
			if err != nil {
				return remoteErr(err)
			}
			fmt.Fprintf(a.out, "cloned workspace %s from %s into %s: %d events (to %d), %d contents fetched, %d files written\n",
				ws, s.Remote().Name, args[1], rep.Events, rep.Last, rep.Contents, rep.Files)
			if n := len(rep.WithheldArgs) + len(rep.WithheldContents); n > 0 {
				fmt.Fprintf(a.out, "redacted: %d event(s)' arguments and %d content(s) (their keys were shredded); files not written: %s\n",
					len(rep.WithheldArgs), len(rep.WithheldContents), strings.Join(rep.Withheld, ", "))
			}
			if len(rep.Skipped) > 0 {
				fmt.Fprintf(a.out, "note: %d file(s) of other workspace roots were not written: %s\n", len(rep.Skipped), strings.Join(rep.Skipped, ", "))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&ws, "workspace", "", "the workspace to clone")
	cmd.Flags().Uint64Var(&at, "at", 0, "only the events up to this one, and the files as they were after it")
	return cmd
}

// remoteProgress is a push's or a clone's progress on a TTY: a bar made
// when the total is first known, and its removal.
func (a *app) remoteProgress(desc string) (func(done, total uint64), func()) {
	var b *bar
	return func(done, total uint64) {
			if b == nil {
				b = a.progressFrom(int64(total), desc, false, 1)
			}
			b.Set(int64(done))
		}, func() {
			if b != nil {
				b.Done()
			}
		}
}

// verifyRemote checks a remote's workspaces (or one) and names every
// missing or altered object.
func (a *app) verifyRemote(name, ws string, o audit.CheckOptions) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := openRemote(ctx, name)
	if err != nil {
		return remoteErr(err)
	}
	rep, err := remote.VerifyWith(ctx, s, ws, o)
	if err != nil {
		return remoteErr(err)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(a.out, "bad: %s\n", p)
	}
	if !rep.OK() {
		return fmt.Errorf("verify --remote %s: %d object(s) missing or altered (listed above)", s.Remote().Name, len(rep.Problems))
	}
	fmt.Fprintf(a.out, "ok: %d workspace(s) %s, %d events, chains intact; %d contents and %d chunks re-hashed\n",
		len(rep.Workspaces), strings.Join(rep.Workspaces, " "), rep.Events, rep.Contents, rep.Chunks)
	switch {
	case s.Encrypted() && len(rep.Redacted) == 0:
		fmt.Fprintf(a.out, "ok: encrypted; every sealed object opened with its key from %s\n", s.Remote().Keys)
	case s.Encrypted():
		fmt.Fprintf(a.out, "ok: encrypted; every sealed object opened with its key from %s, but the %d redacted value(s) below\n", s.Remote().Keys, len(rep.Redacted))
	}
	for _, r := range rep.Redacted {
		fmt.Fprintf(a.out, "redacted: %s (its key shredded)\n", r)
	}
	if rep.Unreadable > 0 {
		fmt.Fprintf(a.out, "note: %d object(s) no workspace's keys open (shredded, or left by an interrupted push)\n", rep.Unreadable)
	}
	if o.Keys != nil && rep.Checkpoints == 0 {
		return withHint(fmt.Errorf("verify --remote %s: no checkpoint signed by the keys given: %w", s.Remote().Name, audit.ErrCheckpoint),
			"checkpoints reach a remote with `journal push` once `journal checkpoint` (or serve --checkpoint-every) signed them")
	}
	if rep.Checkpoints > 0 {
		signed := "signatures not checked (give --key FILE.pub)"
		if o.Keys != nil {
			signed = "each signed by a key given"
		}
		fmt.Fprintf(a.out, "ok: %d checkpoint(s) match their workspace's Merkle tree; %s\n", rep.Checkpoints, signed)
	}
	return nil
}

// againstRemote adds to o the record remote name holds of workspace ws (""
// : the local journal's): its events' chain hashes as the reference and
// its checkpoints (journal verify --against NAME).
func (a *app) againstRemote(o *audit.CheckOptions, name, ws string) error {
	if o.Reference != nil {
		return usageError{errors.New("--against NAME and an earlier export in --checkpoint: one reference at a time")}
	}
	if ws == "" {
		if err := a.view(func(tx *journal.Tx) error { ws = tx.Workspace(); return nil }); err != nil {
			return err
		}
		if ws == "" {
			return withHint(fmt.Errorf("--against %s: this journal was never pushed (it has no workspace ID)", name), "pass --workspace ID (journal remote show "+name+" lists them)")
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	s, err := openRemote(ctx, name)
	if err != nil {
		return remoteErr(err)
	}
	leaves, cps, err := remote.History(ctx, s, ws)
	if err != nil {
		return remoteErr(err)
	}
	o.Reference, o.RefFrom = leaves, "remote "+name+"'s copy"
	o.Checkpoints = append(o.Checkpoints, cps...)
	return nil
}
