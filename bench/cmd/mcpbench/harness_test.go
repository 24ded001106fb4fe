package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/journalfs/journal/bench/report"
)

// TestMain doubles as a fake reference server (edit_file, read_text_file, write_file)
// when MCPBENCH_FAKE is set: "ok" behaves, "corrupt" writes a wrong result,
// "hang" never answers its third tool call, "hangonce" does that only while
// the file MCPBENCH_HANG_MARK does not exist (and creates it).
func TestMain(m *testing.M) {
	if mode := os.Getenv("MCPBENCH_FAKE"); mode != "" {
		fakeServe(mode, os.Stdin, os.Stdout)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeServe(mode string, in io.Reader, out io.Writer) {
	r := bufio.NewReaderSize(in, 1<<20)
	enc := json.NewEncoder(out)
	calls := 0
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					Path    string `json:"path"`
					Head    int    `json:"head"`
					Content string `json:"content"`
					Edits   []struct {
						OldText string `json:"oldText"`
						NewText string `json:"newText"`
					} `json:"edits"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &req) != nil || req.ID == nil {
			continue
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]string{"name": "fake", "version": "1"}}
		case "tools/list":
			result = map[string]any{"tools": []map[string]string{{"name": "edit_file"}, {"name": "read_text_file"}, {"name": "write_file"}}}
		case "tools/call":
			if calls++; calls == 3 && (mode == "hang" || mode == "hangonce") {
				mark := os.Getenv("MCPBENCH_HANG_MARK")
				if _, err := os.Stat(mark); mode == "hang" || err != nil {
					os.WriteFile(mark, nil, 0o644)
					time.Sleep(time.Hour) // stalled: the client's timeout ends it
				}
			}
			a := req.Params.Arguments
			text, isErr := "ok", false
			b, err := os.ReadFile(a.Path)
			switch {
			case err != nil:
				text, isErr = err.Error(), true
			case req.Params.Name == "edit_file":
				s := string(b)
				for _, e := range a.Edits {
					if !strings.Contains(s, e.OldText) {
						text, isErr = "not found: "+e.OldText, true
					}
					nt := e.NewText
					if mode == "corrupt" {
						nt += "X"
					}
					s = strings.Replace(s, e.OldText, nt, 1)
				}
				if !isErr {
					os.WriteFile(a.Path, []byte(s), 0o644)
				}
			case req.Params.Name == "write_file":
				c := a.Content
				if mode == "corrupt" {
					c += "X"
				}
				os.WriteFile(a.Path, []byte(c), 0o644)
			case req.Params.Name == "read_text_file":
				ls := strings.SplitAfter(string(b), "\n")
				text = strings.TrimSuffix(strings.Join(ls[:min(a.Head, len(ls))], ""), "\n")
			}
			result = map[string]any{"isError": isErr, "content": []map[string]string{{"type": "text", "text": text}}}
		default:
			enc.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "error": map[string]any{"code": -32601, "message": "no"}})
			continue
		}
		enc.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
	}
}

func fakeBench(t *testing.T, mode string) *bench {
	t.Setenv("MCPBENCH_FAKE", mode)
	c := short
	c.smallEdits, c.bigMB, c.bigEdits, c.readMB, c.batches, c.reverts, c.logEdits = 5, 1, 2, []int{1}, 2, 2, 3
	c.writeKB, c.writes, c.wbatchFiles, c.wbatchKB, c.wbatches, c.memMB = []int{10}, 2, 3, 8, 2, []int{1}
	c.timeout = 20 * time.Second
	b := &bench{cfg: c, targets: []string{report.Ref}, workdir: t.TempDir(), log: io.Discard,
		fixtures: map[int]fixture{}, infos: map[string]string{}}
	b.sv = servers{refArgv: []string{os.Args[0]}, timeout: c.timeout}
	return b
}

func TestRunWorkload_AllWorkloadsOnAFakeServer(t *testing.T) {
	b := fakeBench(t, "ok")
	for _, w := range b.workloads() {
		wr, failed := b.runWorkload(w)
		if len(failed) > 0 {
			t.Fatalf("%s failed: %v", w.id, failed)
		}
		if len(wr.Metrics) == 0 {
			t.Fatalf("%s: no rows", w.id)
		}
		first := wr.Metrics[0]
		if v := first.Values[report.Ref]; v.V == nil {
			t.Errorf("%s: %s has no value for the reference: %+v", w.id, first.Name, v)
		}
		if v := first.Values[report.Ours]; v.NA != "not run" {
			t.Errorf("%s: ours = %+v, want not run", w.id, v)
		}
		if n := len(wr.Metrics); n < 3 {
			t.Errorf("%s: %d rows", w.id, n)
		}
	}
	if b.infos[report.Ref] != "fake 1" {
		t.Errorf("server info = %q", b.infos[report.Ref])
	}
}

func TestRunWorkload_WrongResultIsFailedNotTimed(t *testing.T) {
	b := fakeBench(t, "corrupt")
	for _, w := range b.workloads() {
		if w.id != "small_edits" {
			continue
		}
		wr, failed := b.runWorkload(w)
		if len(failed) != 1 || !strings.Contains(failed[0], "small_edits/reference") {
			t.Fatalf("failed = %v", failed)
		}
		for _, m := range wr.Metrics {
			v := m.Values[report.Ref]
			if v.Failed == "" || v.V != nil {
				t.Errorf("%s: %+v, want FAILED without a number", m.Name, v)
			}
		}
		// the failure names the line that differs
		if !strings.Contains(failed[0], "small.txt: line") {
			t.Errorf("failure does not say where: %s", failed[0])
		}
		return
	}
	t.Fatal("no small_edits workload")
}

// In -short mode a run that times out is run once more with a fresh server:
// one stall passes (and is listed), a second fails the workload.
func TestRunWorkload_TimeoutRetriedOnce(t *testing.T) {
	for _, mode := range []string{"hangonce", "hang"} {
		t.Run(mode, func(t *testing.T) {
			b := fakeBench(t, mode)
			t.Setenv("MCPBENCH_HANG_MARK", t.TempDir()+"/hung")
			b.sv.timeout, b.retry = 2*time.Second, true
			var log strings.Builder
			b.log = &log
			wr, failed := b.runWorkload(b.workloads()[0])
			if len(b.retried) != 1 || !strings.Contains(b.retried[0], "small_edits/reference round 1") || !strings.Contains(b.retried[0], "timeout") {
				t.Fatalf("retried = %q, failed %v, log %s", b.retried, failed, log.String())
			}
			if !strings.Contains(log.String(), "SIGQUIT") {
				t.Errorf("the log has no goroutine dump of the stalled server:\n%s", log.String())
			}
			switch v := wr.Metrics[0].Values[report.Ref]; mode {
			case "hangonce":
				if len(failed) != 0 || v.V == nil {
					t.Fatalf("failed = %v, value %+v: the retry should have passed", failed, v)
				}
			case "hang":
				if len(failed) != 1 || v.V != nil {
					t.Fatalf("failed = %v, value %+v: a second timeout must fail", failed, v)
				}
			}
		})
	}
}

func TestWorkloadIDs(t *testing.T) {
	b := &bench{cfg: full}
	var ids []string
	for _, w := range b.workloads() {
		ids = append(ids, w.id)
	}
	if got := fmt.Sprint(ids); got != "[small_edits big_edits read_50mb read_1024mb batch revert log write_10kb write_100kb write_1mb write_10mb write_batch mem_50mb mem_200mb mem_1024mb]" {
		t.Fatalf("ids = %s", got)
	}
}
