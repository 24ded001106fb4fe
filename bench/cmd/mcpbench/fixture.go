package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// lines is the expected content of a text file: n generated lines, some
// overridden by edits, each ending in "\n". It is the model every server's
// file is checked against after a run.
type lines struct {
	n    int
	gen  func(dst []byte, i int) []byte // appends line i (0-based) without "\n"
	over map[int]string                 // edited lines by index
}

func newLines(n int, gen func(dst []byte, i int) []byte) *lines {
	return &lines{n: n, gen: gen, over: map[int]string{}}
}

// line returns line i (0-based) without its newline.
func (m *lines) line(i int) string {
	if s, ok := m.over[i]; ok {
		return s
	}
	return string(m.gen(nil, i))
}

// set replaces line i.
func (m *lines) set(i int, s string) { m.over[i] = s }

func (m *lines) appendLine(dst []byte, i int) []byte {
	if s, ok := m.over[i]; ok {
		return append(dst, s...)
	}
	return m.gen(dst, i)
}

// write writes the content to path.
func (m *lines) write(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var buf []byte
	for i := 0; i < m.n; i++ {
		buf = append(m.appendLine(buf[:0], i), '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// check compares path with the model and names the first difference.
func (m *lines) check(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var want []byte
	for i := 0; i < m.n; i++ {
		got, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return fmt.Errorf("%s: line %d is over 1 MiB", filepath.Base(path), i+1)
		}
		want = append(m.appendLine(want[:0], i), '\n')
		if !bytes.Equal(got, want) {
			return fmt.Errorf("%s: line %d is %q, want %q", filepath.Base(path), i+1, clip(got), clip(want))
		}
	}
	if extra, _ := r.Peek(1); len(extra) > 0 {
		return fmt.Errorf("%s: content after the expected %d lines", filepath.Base(path), m.n)
	}
	return nil
}

func clip(b []byte) string {
	if len(b) > 120 {
		return string(b[:120]) + "…"
	}
	return string(b)
}

// smallLine is line i of the 300-line file (about 65 bytes).
func smallLine(dst []byte, i int) []byte {
	dst = append(dst, "line "...)
	dst = pad(dst, i, 4)
	dst = append(dst, ": the quick brown fox jumps over the lazy dog "...)
	return strconv.AppendInt(dst, int64(i*7919%10007), 10)
}

// bigLine is line i of the large files: exactly 49 bytes + "\n".
func bigLine(dst []byte, i int) []byte {
	dst = append(dst, 'L')
	dst = pad(dst, i, 8)
	return append(dst, " lorem ipsum dolor sit amet, consectetur"...)
}

// batchLine returns the generator of file f of the batch workload.
func batchLine(f int) func(dst []byte, i int) []byte {
	return func(dst []byte, i int) []byte {
		dst = append(dst, "// file "...)
		dst = pad(dst, f, 2)
		dst = append(dst, " line "...)
		dst = pad(dst, i, 4)
		return append(dst, ": func handler() error { return nil }"...)
	}
}

func pad(dst []byte, v, width int) []byte {
	s := strconv.Itoa(v)
	for k := len(s); k < width; k++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// du returns the bytes allocated on disk under path (as du counts them);
// 0 when path does not exist.
func du(path string) int64 {
	var total int64
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			total += st.Blocks * 512
		} else {
			total += info.Size()
		}
		return nil
	})
	return total
}

// copyFile copies src to dst. (Not a hard link: our server refuses to
// touch a file with more than one link, since it may be shared with a path
// outside the workspace.)
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
