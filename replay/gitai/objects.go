package gitai

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The hot path writes a note's objects itself, loose, as git writes them
// (zlib of "<type> <size>\0<data>" under objects/xx/…), and only the ref
// through git (`update-ref NEW OLD`): one git command instead of the five
// or six of hash-object, read-tree, update-index, write-tree and
// commit-tree (see BENCHMARKS.md). It applies to a notes tree whose notes
// for the commits concerned, if any, sit at its top (as ours always do);
// one with such a note under fanout directories (git notes' layout past a
// few hundred notes) goes through git fast-import, which rebalances it.

// errSlowPath means the fast path does not apply: fast-import does it.
var errSlowPath = errors.New("gitai: notes tree needs fast-import")

func (r *Repo) newHash() hash.Hash {
	if r.sha256 {
		return sha256.New()
	}
	return sha1.New()
}

// objectID is the name git gives data as an object of type typ.
func (r *Repo) objectID(typ string, data []byte) string {
	h := r.newHash()
	h.Write([]byte(typ + " " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// writeObject stores data as a loose object of type typ and returns its name.
func (r *Repo) writeObject(typ string, data []byte) (string, error) {
	id := r.objectID(typ, data)
	dir := filepath.Join(r.CommonDir, "objects", id[:2])
	final := filepath.Join(dir, id[2:])
	if _, err := os.Stat(final); err == nil {
		return id, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write([]byte(typ + " " + strconv.Itoa(len(data)) + "\x00"))
	w.Write(data)
	if err := w.Close(); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return "", err
	}
	_, err = f.Write(z.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		os.Chmod(f.Name(), 0o444)
		err = os.Link(f.Name(), final)
		if errors.Is(err, os.ErrExist) {
			err = nil // another writer stored it first: the same bytes
		}
	}
	os.Remove(f.Name())
	if err != nil {
		return "", err
	}
	return id, nil
}

// treeEntry is one entry of a tree object.
type treeEntry struct {
	mode string // "100644", "40000"
	name string
	id   []byte // binary
}

func parseTree(data []byte, idLen int) ([]treeEntry, error) {
	var out []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || nul+1+idLen > len(data) {
			return nil, fmt.Errorf("gitai: a damaged tree object")
		}
		out = append(out, treeEntry{string(data[:sp]), string(data[sp+1 : nul]), append([]byte(nil), data[nul+1:nul+1+idLen]...)})
		data = data[nul+1+idLen:]
	}
	return out, nil
}

// treeName is an entry's name as git sorts it: a tree's with a slash after.
func treeName(e treeEntry) string {
	if e.mode == "40000" {
		return e.name + "/"
	}
	return e.name
}

func formatTree(es []treeEntry) []byte {
	sort.Slice(es, func(i, j int) bool { return treeName(es[i]) < treeName(es[j]) })
	var b bytes.Buffer
	for _, e := range es {
		b.WriteString(e.mode + " " + e.name + "\x00")
		b.Write(e.id)
	}
	return b.Bytes()
}

// fastCommit makes the notes commit of u on old with objects of its own and
// moves the ref compare-and-swap; errSlowPath when a note to replace lies
// under a fanout directory.
func (r *Repo) fastCommit(ctx context.Context, old string, existing map[string][2]string, changed []string, u *notesUpdate, msg string) error {
	if os.Getenv("GIT_OBJECT_DIRECTORY") != "" {
		return errSlowPath
	}
	for _, c := range changed {
		if strings.Contains(existing[c][1], "/") {
			return errSlowPath
		}
	}
	idLen := 20
	if r.sha256 {
		idLen = 32
	}
	var root []treeEntry
	if old != "" {
		cf, err := r.cat()
		if err != nil {
			return err
		}
		typ, data, err := cf.read(old + "^{tree}")
		if err != nil {
			return err
		}
		if typ != "tree" {
			return fmt.Errorf("gitai: %s^{tree} is a %s", old, typ)
		}
		if root, err = parseTree(data, idLen); err != nil {
			return err
		}
	}
	byName := map[string]int{}
	for i, e := range root {
		byName[e.name] = i
	}
	for _, c := range changed {
		id, err := r.writeObject("blob", u.set[c])
		if err != nil {
			return err
		}
		bid, _ := hex.DecodeString(id)
		if i, ok := byName[c]; ok {
			root[i] = treeEntry{"100644", c, bid}
		} else {
			byName[c] = len(root)
			root = append(root, treeEntry{"100644", c, bid})
		}
	}
	tree, err := r.writeObject("tree", formatTree(root))
	if err != nil {
		return err
	}
	var cb bytes.Buffer
	cb.WriteString("tree " + tree + "\n")
	if old != "" {
		cb.WriteString("parent " + old + "\n")
	}
	for _, p := range u.parents {
		cb.WriteString("parent " + p + "\n")
	}
	ident := fmt.Sprintf("journal <journal@localhost> %d +0000", time.Now().Unix())
	cb.WriteString("author " + ident + "\ncommitter " + ident + "\n\n" + msg + "\n")
	nc, err := r.writeObject("commit", cb.Bytes())
	if err != nil {
		return err
	}
	oldv := old
	if oldv == "" {
		oldv = nullOf(r)
	}
	if _, err := r.git(context.WithoutCancel(ctx), nil, "update-ref", "-m", "journal git: notes", u.ref, nc, oldv); err != nil {
		return fmt.Errorf("%w: %v", errLostRace, err)
	}
	return nil
}
