package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/journalfs/journal/bench/report"
)

// Whole-file writes (issue #17): what agents send most after small edits —
// new files, rewrites, generated code — where the wire, not the engine,
// decides the speed.

// writeContent returns version v of a whole file of about kb kilobytes:
// source-like lines, some with quotes, a backslash or non-ASCII text, so the
// JSON string carrying it has escapes to decode (about one and a half per
// line on average: a 10 MB file stays under the 10 MiB message limit of the
// TypeScript SDK's stdio transport, which the reference is built on).
func writeContent(kb, file, v int) []byte {
	var b bytes.Buffer
	b.Grow(kb*1000 + 128)
	for i := 0; b.Len() < kb*1000; i++ {
		h := uint32(i*2654435761 + v*40503 + file)
		switch {
		case i%64 == 0:
			fmt.Fprintf(&b, "\t// file %d version %d: naïve ünïcode, a \\ backslash %08x\n", file, v, h)
		case i%8 == 0:
			fmt.Fprintf(&b, "    fmt.Println(\"line %06d of file %d, version %d\", v%08x)\n", i, file, v, h)
		default:
			fmt.Fprintf(&b, "    x%06d := compute(x%06d, %d, 0x%08x) + offset\n", i, i/2, v, h)
		}
	}
	return b.Bytes()
}

// writeFiles writes every file of paths whole with its content, timed as
// op: on ours one file_replace call (all-or-nothing), on the reference one
// write_file call per file, plus a checkpoint for reference+git.
func (s *session) writeFiles(op string, paths []string, contents [][]byte) error {
	var d time.Duration
	if s.target == report.Ours {
		ops := make([]map[string]any, len(paths))
		for f, p := range paths {
			ops[f] = map[string]any{"path": p, "content": string(contents[f])}
		}
		var err error
		if d, err = s.fileReplace(ops); err != nil {
			return err
		}
		s.used[op] = "file_replace {ops: [{path, content}]}"
		if len(paths) > 1 {
			s.used[op] = "file_replace {ops: [{path, content} per file]}"
		}
	} else {
		for f, p := range paths {
			_, df, err := s.call("write_file", map[string]any{"path": p, "content": string(contents[f])})
			if err != nil {
				return fmt.Errorf("file %d: %w", f, err)
			}
			d += df
		}
		if s.target == report.RefGit {
			t0 := time.Now()
			if err := s.checkpoint(op); err != nil {
				return err
			}
			d += time.Since(t0)
		}
		s.used[op] = "write_file {path, content}"
		if len(paths) > 1 {
			s.used[op] = fmt.Sprintf("%d × write_file", len(paths))
		}
	}
	s.edits += len(paths)
	s.record(op, d)
	return nil
}

// fileReplace is one file_replace call of ours with ops, and its time.
func (s *session) fileReplace(ops []map[string]any) (time.Duration, error) {
	tool, err := s.need("file_replace")
	if err != nil {
		return 0, err
	}
	_, d, err := s.call(tool, map[string]any{"ops": ops})
	return d, err
}

// writeWorkload writes a file of kb kilobytes whole, c.writes times.
func (b *bench) writeWorkload(kb int) workload {
	c := b.cfg
	name := fmt.Sprintf("%d KB", kb)
	if kb >= 1000 {
		name = fmt.Sprintf("%d MB", kb/1000)
	}
	return workload{
		id: fmt.Sprintf("write_%s", sizeID(kb)), title: fmt.Sprintf("whole-file write, %s", name), mutates: true,
		prepare: func(ws string) (func(*session) error, error) {
			path := filepath.Join(ws, "gen.go")
			return func(s *session) error {
				var last []byte
				for v := 1; v <= c.writes; v++ {
					last = writeContent(kb, 0, v)
					if err := s.writeFiles("write", []string{path}, [][]byte{last}); err != nil {
						return fmt.Errorf("write %d: %w", v, err)
					}
				}
				return sameFile(path, last)
			}, os.WriteFile(path, writeContent(kb, 0, 0), 0o644)
		},
		method: []string{fmt.Sprintf("%d writes of a whole %s file (each a new version: source-like lines with quotes, escapes and non-ASCII text), one call each; the file is checked afterwards.", c.writes, name),
			"Ours: `file_replace {ops: [{path, content}]}` (journaled, fsynced). The reference: `write_file {path, content}`; `reference+git` adds a checkpoint."},
	}
}

// writeBatchWorkload writes c.wbatchFiles files of c.wbatchKB KiB whole, as
// one atomic call on ours and as one write_file call per file on the reference.
func (b *bench) writeBatchWorkload() workload {
	c := b.cfg
	return workload{
		id: "write_batch", title: fmt.Sprintf("%d files × %d KiB written whole, one batch", c.wbatchFiles, c.wbatchKB), mutates: true,
		prepare: func(ws string) (func(*session) error, error) {
			paths := make([]string, c.wbatchFiles)
			for f := range paths {
				paths[f] = filepath.Join(ws, fmt.Sprintf("gen%02d.go", f))
				if err := os.WriteFile(paths[f], writeContent(c.wbatchKB*1024/1000, f, 0), 0o644); err != nil {
					return nil, err
				}
			}
			return func(s *session) error { return runWriteBatch(s, paths, c.wbatchKB*1024/1000, c.wbatches) }, nil
		},
		method: []string{fmt.Sprintf("%d times: every one of %d files of %d KiB written whole.", c.wbatches, c.wbatchFiles, c.wbatchKB),
			"Ours: one `file_replace {ops: [{path, content} × N]}` call (all-or-nothing).",
			fmt.Sprintf("The reference has no batch: %d `write_file` calls, timed together (not atomic); `reference+git` adds one checkpoint.", c.wbatchFiles)},
	}
}

func runWriteBatch(s *session, paths []string, kb, n int) error {
	var last [][]byte
	for v := 1; v <= n; v++ {
		last = make([][]byte, len(paths))
		for f := range paths {
			last[f] = writeContent(kb, f, v)
		}
		if err := s.writeFiles("batch", paths, last); err != nil {
			return fmt.Errorf("batch %d: %w", v, err)
		}
	}
	for f, p := range paths {
		if err := sameFile(p, last[f]); err != nil {
			return err
		}
	}
	return nil
}

// sameFile checks that path holds want.
func sameFile(path string, want []byte) error {
	got, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		return fmt.Errorf("%s differs from what was written at byte %d (%d bytes, want %d)", filepath.Base(path), i, len(got), len(want))
	}
	return nil
}

func sizeID(kb int) string {
	if kb >= 1000 && kb%1000 == 0 {
		return fmt.Sprintf("%dmb", kb/1000)
	}
	return fmt.Sprintf("%dkb", kb)
}

// memWorkload edits and reads a file of mb megabytes: what a server's peak
// memory must not grow with (issue #17: ≤ 128 MiB whatever the size).
func (b *bench) memWorkload(mb int) workload {
	c := b.cfg
	const edits = 3
	return workload{
		id: fmt.Sprintf("mem_%dmb", mb), title: fmt.Sprintf("%d edits and a read, %s file", edits, sizeName(mb)), mutates: true,
		na: map[string]string{report.RefGit: "the peak memory of the reference's server is the same with a checkpoint"},
		prepare: func(ws string) (func(*session) error, error) {
			path, m, err := b.fixtureCopy(mb, ws)
			if err != nil {
				return nil, err
			}
			m = newLines(m.n, m.gen) // this run's edits, not the fixture's
			return func(s *session) error {
				if err := editSeries(s, path, m, edits, func(i int) int { return (2*i + 1) * m.n / (2 * edits) }, "mem", "edit"); err != nil {
					return err
				}
				return readMiddle(s, path, m, c.readSpan)
			}, nil
		},
		method: []string{fmt.Sprintf("%d one-line edits at evenly spaced lines of a file of 50-byte lines, then a read of %d lines from its middle; the figure that matters is the server's peak RSS (VmHWM).", edits, c.readSpan)},
	}
}
