package mcp

import "github.com/journalfs/journal/replay"

// Files made read-only. A person protects a file from agents with chmod
// a-w; the atomic rename every write ends with needs only the directory's
// permission, so the engine refuses a change to such a file
// (replay.ErrReadOnlyFile, PERMISSION_DENIED) unless the batch says to
// write it (replay.Batch.WriteReadOnly). Every tool that writes existing
// files takes allow_read_only (writeOpts) and passes it there through the
// call: the edit tools, the batch tools, revert_edit, undo and redo — an
// agent's undo of its own edit is refused too, once a person protected the
// file since. The CLI's and the web app's revert, undo, redo, restore and
// rewind are a person's acts and write such files.

// writeOpts is the argument of every tool that writes existing files.
type writeOpts struct {
	AllowReadOnly bool `json:"allow_read_only,omitempty"`
}

func (o writeOpts) allowsReadOnly() bool { return o.AllowReadOnly }

// readOnlyAllower is an input that carries writeOpts.
type readOnlyAllower interface{ allowsReadOnly() bool }

// batch returns the batch of call c, journaled with its tool, arguments and
// actor, writing files made read-only only when the call said so.
func (c *call) batch(dryRun bool) *replay.Batch {
	return &replay.Batch{Tool: c.tool, Args: c.args, Actor: &c.actor, DryRun: dryRun, WriteReadOnly: c.allowReadOnly}
}

// revertOptions returns the options of call c's revert, undo or redo.
func (c *call) revertOptions() replay.RevertOptions {
	return replay.RevertOptions{Actor: &c.actor, WriteReadOnly: c.allowReadOnly}
}
