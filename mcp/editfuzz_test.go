package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/journalfs/journal/bench/editfuzz"
	jmcp "github.com/journalfs/journal/mcp"
)

// inproc is the edit fuzzer's client: the in-process mcp-go client of env.
type inproc struct{ e *env }

func (c inproc) Call(tool string, args map[string]any) (editfuzz.Reply, error) {
	req := mcpgo.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = args
	res, err := c.e.c.CallTool(ctx, req)
	if err != nil {
		return editfuzz.Reply{}, err
	}
	b, _ := json.Marshal(res.StructuredContent)
	return editfuzz.Reply{IsError: res.IsError, Structured: b, Text: text(res)}, nil
}

// envInt is an integer environment variable, def when unset.
func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, s, err)
	}
	return n
}

// TestEditFuzz is the edit fuzzer (bench/editfuzz; RELIABILITY.md, "Edit
// fuzzer") through the in-process client: real edits from the committed
// corpus (testdata/editfuzz/corpus), made into the requests agents send
// and mutated as they err, each judged by the one invariant — the file
// ends as intended (or, where the mutation allows it, as the request
// literally says), or the call refuses, leaves the file byte-identical and
// writes no journal event; already_applied only where the change is in the
// file; a retry never applies twice. Any wrong class not listed in
// editfuzz.KnownFailures fails. JOURNAL_FUZZ_EDITS=N runs N trials (the
// long mode, which adds this repository's own history when git has it),
// JOURNAL_FUZZ_SEED picks the trials, JOURNAL_FUZZ_SAVE=1 writes each new
// class's minimized case into testdata/editfuzz/regressions,
// JOURNAL_FUZZ_DUMP=DIR every wrong trial (minimized) into DIR,
// JOURNAL_FUZZ_ONLY=m1,m2 draws only those mutations.
func TestEditFuzz(t *testing.T) {
	pairs, err := editfuzz.LoadCorpus("../testdata/editfuzz/corpus")
	if err != nil {
		t.Fatal(err)
	}
	n := envInt(t, "JOURNAL_FUZZ_EDITS", 0)
	long := n > 0
	if !long {
		n = 800
	}
	if long {
		if hist, err := editfuzz.GitHistory("..", 400); err != nil || len(hist) == 0 {
			t.Logf("this repository's history is not available (%v): the committed corpus only", err)
		} else {
			t.Logf("%d pairs from this repository's history beside the corpus's %d", len(hist), len(pairs))
			pairs = append(pairs, hist...)
		}
	}
	seed := uint64(envInt(t, "JOURNAL_FUZZ_SEED", 1))
	tally := runEditFuzz(t, pairs, n, seed, long)
	reportEditFuzz(t, tally, os.Getenv("JOURNAL_FUZZ_SAVE") == "1")
}

// runEditFuzz runs n trials: in the short mode in one fresh workspace
// served in process; in the long mode in chunks of 5,000, each in a fresh
// workspace (its journal stays small), JOURNAL_FUZZ_WORKERS (default 2) at
// a time.
func runEditFuzz(t *testing.T, pairs []editfuzz.Pair, n int, seed uint64, long bool) *editfuzz.Tally {
	chunk, workers := n, 1
	if long {
		chunk, workers = 5000, envInt(t, "JOURNAL_FUZZ_WORKERS", 2)
	}
	start := time.Now()
	total := editfuzz.NewTally()
	var mu sync.Mutex
	next := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				mu.Unlock()
				if i*chunk >= n {
					return
				}
				// each chunk's workspace and server go when it ends (at the
				// test's end, 25,000 trials' servers held 23 GB)
				dir, err := os.MkdirTemp("", "editfuzz-")
				if err != nil {
					t.Error(err)
					return
				}
				e, closeEnv := openEnv(t, dir, jmcp.Options{})
				r := editfuzz.NewRunner(inproc{e}, e.eng.Roots()[0].Dir)
				opts := editfuzz.Options{Trials: min(chunk, n-i*chunk), Seed: seed + uint64(i), Minimize: true}
				if only := os.Getenv("JOURNAL_FUZZ_ONLY"); only != "" {
					opts.Only = strings.Split(only, ",")
				}
				if dir := os.Getenv("JOURNAL_FUZZ_DUMP"); dir != "" {
					opts.Wrong = func(tr editfuzz.Trial, v editfuzz.Verdict) {
						if err := editfuzz.SaveWrong(dir, tr, v); err != nil {
							t.Error(err)
						}
					}
				}
				tally, err := editfuzz.Fuzz(r, pairs, opts)
				closeEnv()
				if rmErr := os.RemoveAll(dir); rmErr != nil {
					t.Error(rmErr)
				}
				mu.Lock()
				if err != nil {
					t.Errorf("chunk %d: %v", i, err)
				} else {
					total.Merge(tally)
				}
				if long {
					t.Logf("%d trials, %.0f s, %d wrong classes\n%s", total.Trials, time.Since(start).Seconds(), len(total.Classes), total.Table())
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	total.Elapsed = time.Since(start)
	t.Logf("%d trials from %d pairs, seed %d, in %.1f s (%.0f trials/s)\n%s", total.Trials, len(pairs), seed,
		total.Elapsed.Seconds(), float64(total.Trials)/total.Elapsed.Seconds(), total.Table())
	return total
}

// reportEditFuzz fails on every wrong class not known, showing its
// minimized trial; save writes new classes as regression cases.
func reportEditFuzz(t *testing.T, tally *editfuzz.Tally, save bool) {
	for _, f := range tally.ClassList() {
		js, _ := json.MarshalIndent(f.Trial, "", "  ")
		if issue, ok := editfuzz.KnownFailures[f.Class]; ok {
			t.Logf("known failure (%s), %d×: %s", issue, f.Count, f.Class)
		} else {
			t.Errorf("NEW WRONG CLASS, %d×: %s\n%s\nfirst (minimized) trial:\n%s", f.Count, f.Class, f.Detail, js)
		}
		if save {
			p, err := editfuzz.SaveRegression(filepath.Join("..", "testdata", "editfuzz", "regressions"), f)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("saved %s", p)
		}
	}
}

// TestEditFuzz_Regressions sends every saved wrong trial again
// (testdata/editfuzz/regressions): one still wrong must be of a class in
// editfuzz.KnownFailures; one that passes now is named, so its class can
// leave the list. JOURNAL_FUZZ_REPLAY=DIR sends a dump's trials instead.
func TestEditFuzz_Regressions(t *testing.T) {
	dir := "../testdata/editfuzz/regressions"
	if d := os.Getenv("JOURNAL_FUZZ_REPLAY"); d != "" {
		dir = d // a long run's dump (JOURNAL_FUZZ_DUMP), sent again after a fix
	}
	regs, err := editfuzz.LoadRegressions(dir)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, jmcp.Options{})
	r := editfuzz.NewRunner(inproc{e}, e.eng.Roots()[0].Dir)
	for _, reg := range regs {
		v, err := r.Run(reg.Trial)
		if err != nil {
			t.Fatalf("%s: %v", reg.Class, err)
		}
		_, known := editfuzz.KnownFailures[v.Class]
		switch {
		case v.Outcome != editfuzz.Wrong:
			t.Logf("%s: now %s — its known failure can go", reg.Class, v.Outcome)
		case !known:
			t.Errorf("%s: wrong, class %s (not a known failure): %s", reg.Class, v.Class, v.Detail)
		}
	}
}
