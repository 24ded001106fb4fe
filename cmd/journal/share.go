package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	jmcp "github.com/journalfs/journal/mcp"
	"github.com/journalfs/journal/replay"
)

// One server process per workspace (mcp/share.go says why and how): the
// first stdio serve of a workspace is its writer and listens on
// <journal dir>/serve.sock; a later serve with the same configuration relays
// its client's session there. The choice between following and becoming
// the writer is made under an exclusive lock on <journal dir>/serve.lock,
// so two serves starting at once never both listen, and a writer closes its
// socket under the same lock before it hands over.

// shareMaxPath is the longest socket path used: sun_path holds 108 bytes on
// Linux and 104 on macOS, with its terminating NUL. Beyond it a serve
// serves alone.
const shareMaxPath = 100

// shareRetries bounds how many writers in a row a serve may fail to follow
// before it serves its session alone.
const shareRetries = 5

// builder opens a server for the session (its engine, replicas, language
// servers); done closes them.
type builder func(session string) (srv *jmcp.Server, eng *replay.Engine, done func(), err error)

// sharePaths returns the socket and lock file of the journal the serve
// would open, creating its directory. ok is false when the socket's path
// is too long (or the platform cannot share).
func sharePaths(roots []string, jp string) (sock, lock string, ok bool) {
	if !canShare {
		return "", "", false
	}
	if jp == "" {
		root, err := filepath.Abs(roots[0])
		if err != nil {
			return "", "", false
		}
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
		jp = replay.DefaultJournalPath(root)
	}
	jp, err := filepath.Abs(jp)
	if err != nil {
		return "", "", false
	}
	dir := filepath.Dir(jp)
	if fi, err := os.Stat(filepath.Dir(dir)); err != nil || !fi.IsDir() {
		return "", "", false // no such workspace: replay.Open says so
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", false
	}
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	sock = filepath.Join(dir, "serve.sock")
	if len(sock) > shareMaxPath {
		return "", "", false
	}
	return sock, filepath.Join(dir, "serve.lock"), true
}

// shareConfig is what a serve's behaviour depends on: its flags (roots and
// journal made absolute), JOURNAL_PATH, and this binary (its path, size
// and time: a rebuilt or upgraded binary does not follow an older one).
func shareConfig(cmd *cobra.Command) string {
	var parts []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		v := f.Value.String()
		switch f.Name {
		case "share":
			return
		case "root", "journal":
			var abs []string
			for _, p := range flagStrings(cmd, f.Name) {
				if a, err := filepath.Abs(p); err == nil {
					p = a
				}
				abs = append(abs, p)
			}
			v = strings.Join(abs, "\x00")
		}
		parts = append(parts, f.Name+"="+v)
	})
	sort.Strings(parts)
	parts = append(parts, "JOURNAL_PATH="+os.Getenv("JOURNAL_PATH"), "version="+binVersion())
	if exe, err := os.Executable(); err == nil {
		if fi, err := os.Stat(exe); err == nil {
			parts = append(parts, fmt.Sprintf("exe=%s %d %d", exe, fi.Size(), fi.ModTime().UnixNano()))
		}
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}

// serveShared serves this process's stdio session: as a follower of the
// workspace's writer while there is one, else as the writer.
func serveShared(parent context.Context, roots []string, jp, config string, build builder) error {
	ctx, stop := signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
	defer stop()
	sock, lockPath, ok := sharePaths(roots, jp)
	if !ok {
		return serveAlone(ctx, nil, build)
	}
	var relay *jmcp.Relay
	failures := 0
	for {
		unlock, err := lockFile(lockPath)
		if err != nil {
			fmt.Fprintf(os.Stderr, "journal serve: serving alone: %v\n", err)
			return serveAlone(ctx, relay, build)
		}
		conn, err := net.DialTimeout("unix", sock, 2*time.Second)
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			// nobody listens: this process is the writer
			return serveWriter(ctx, sock, lockPath, config, unlock, relay, build)
		}
		unlock()
		if err != nil { // someone listens but cannot take us now (a full backlog?)
			if failures++; failures >= shareRetries {
				fmt.Fprintf(os.Stderr, "journal serve: serving alone: %v\n", err)
				return serveAlone(ctx, relay, build)
			}
			time.Sleep(time.Duration(failures) * 20 * time.Millisecond)
			continue
		}
		if relay == nil {
			var b [8]byte
			rand.Read(b[:])
			relay = jmcp.NewRelay(stdinReader(), os.Stdout, config, "stdio-"+hex.EncodeToString(b[:]))
		}
		stopWatch := context.AfterFunc(ctx, func() { conn.Close() })
		done, err := relay.Follow(conn)
		stopWatch()
		switch {
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, jmcp.ErrShareRefused):
			return serveAlone(ctx, relay, build)
		case errors.Is(err, os.ErrDeadlineExceeded): // a writer that does not answer (stopped?)
			fmt.Fprintf(os.Stderr, "journal serve: serving alone: this workspace's server does not answer: %v\n", err)
			return serveAlone(ctx, relay, build)
		case err != nil:
			if failures++; failures >= shareRetries {
				fmt.Fprintf(os.Stderr, "journal serve: serving alone after %d failed attempts to follow this workspace's server: %v\n", failures, err)
				return serveAlone(ctx, relay, build)
			}
			time.Sleep(time.Duration(failures) * 20 * time.Millisecond)
		case done:
			return nil
		default:
			failures = 0 // the writer handed over: follow the next, or become it
		}
	}
}

// serveAlone serves the session on a server of its own, shared with nobody.
func serveAlone(ctx context.Context, relay *jmcp.Relay, build builder) error {
	srv, _, done, err := build(relay.Session())
	if err != nil {
		return err
	}
	defer done()
	return serveOwn(ctx, srv, relay, os.Stdin)
}

// serveOwn serves this process's client on srv: the rest of its relayed
// session, or stdin (in: os.Stdin, or a writer's stdinSwitch).
func serveOwn(ctx context.Context, srv *jmcp.Server, relay *jmcp.Relay, in io.Reader) error {
	if relay != nil {
		return relay.Serve(ctx, srv)
	}
	growPipe(os.Stdin)
	return srv.ServeStdio(ctx, in, os.Stdout)
}

// serveWriter serves the session as the workspace's writer: it opens the
// journal, listens for followers (the lock is held until it does), serves
// its own client, then hands over.
func serveWriter(ctx context.Context, sock, lockPath, config string, unlock func(), relay *jmcp.Relay, build builder) error {
	srv, _, done, err := build(relay.Session())
	if err != nil {
		unlock()
		return err
	}
	defer done()
	ln, lerr := listenShare(sock)
	unlock()
	drain := make(chan struct{})
	var followers sync.WaitGroup
	stdin := newStdinSwitch()
	if lerr != nil {
		fmt.Fprintf(os.Stderr, "journal serve: serving alone (others on this workspace cannot share this server): %v\n", lerr)
	} else {
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				if !samePeer(c) {
					c.Close()
					continue
				}
				stdin.poll()
				followers.Add(1)
				go func() {
					defer followers.Done()
					defer c.Close()
					if err := srv.ServeFollower(context.Background(), c, config, drain); err != nil && !errors.Is(err, net.ErrClosed) {
						fmt.Fprintf(os.Stderr, "journal serve: a follower's session: %v\n", err)
					}
				}()
			}
		}()
	}
	err = serveOwn(ctx, srv, relay, stdin)
	if ln != nil { // hand over: no new follower, the others finish their calls and follow the next writer
		unlock, lerr := lockFile(lockPath)
		ln.Close()
		if lerr == nil {
			unlock()
		}
		close(drain)
		followers.Wait()
	}
	return err
}

// shareListener is a writer's socket. Close removes the socket file only
// if it is still this one: a writer that another took for gone (its socket
// replaced) must not remove the other's.
type shareListener struct {
	*net.UnixListener
	path string
	file os.FileInfo
}

// Close stops listening and removes the socket file if it is this one's.
func (l *shareListener) Close() error {
	if fi, err := os.Lstat(l.path); err == nil && os.SameFile(fi, l.file) {
		os.Remove(l.path)
	}
	return l.UnixListener.Close()
}

// listenShare listens on sock, replacing a socket nobody listens on (a
// writer that was killed); the caller holds the lock.
func listenShare(sock string) (*shareListener, error) {
	if fi, err := os.Lstat(sock); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("%s exists and is not a socket", sock)
		}
		os.Remove(sock)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", sock, err)
	}
	ln.SetUnlinkOnClose(false)
	fi, err := os.Lstat(sock)
	if err == nil {
		err = os.Chmod(sock, 0o600)
	}
	if err != nil {
		ln.Close()
		os.Remove(sock)
		return nil, fmt.Errorf("socket %s: %w", sock, err)
	}
	return &shareListener{UnixListener: ln, path: sock, file: fi}, nil
}
