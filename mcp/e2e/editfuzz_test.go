package e2e

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/journalfs/journal/bench/editfuzz"
)

// sdkCaller is the edit fuzzer's client through the official TypeScript
// SDK (driver.mjs): each call is one line to the driver and one back.
type sdkCaller struct{ d *driver }

func (c sdkCaller) Call(tool string, args map[string]any) (editfuzz.Reply, error) {
	if err := c.d.in.Encode(map[string]any{"tool": tool, "args": args}); err != nil {
		return editfuzz.Reply{}, err
	}
	if !c.d.out.Scan() {
		return editfuzz.Reply{}, errors.New(tool + ": the SDK client stopped")
	}
	var s step
	if err := json.Unmarshal(c.d.out.Bytes(), &s); err != nil {
		return editfuzz.Reply{}, err
	}
	return editfuzz.Reply{IsError: s.IsError, Structured: s.Structured, Text: s.Text}, nil
}

// TestSDK_EditFuzz is the edit fuzzer (bench/editfuzz; the in-process twin
// is mcp.TestEditFuzz) through the official TypeScript SDK client against
// the real binary (`journal serve --watch=false`): the same trials, the same
// oracle, the same known failures; any other wrong class fails.
// JOURNAL_FUZZ_EDITS_SDK=N runs N trials (default 300), in servers of
// 5,000 trials each; JOURNAL_FUZZ_DUMP=DIR saves every wrong trial there.
func TestSDK_EditFuzz(t *testing.T) {
	pairs, err := editfuzz.LoadCorpus(filepath.Join(repo, "testdata", "editfuzz", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	n := 300
	if s := os.Getenv("JOURNAL_FUZZ_EDITS_SDK"); s != "" {
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatal(err)
		}
	}
	if n > 300 {
		// the long mode draws on this repository's history too, as the
		// in-process one does
		if hist, err := editfuzz.GitHistory(repo, 400); err != nil || len(hist) == 0 {
			t.Logf("this repository's history is not available (%v): the committed corpus only", err)
		} else {
			t.Logf("%d pairs from this repository's history beside the corpus's %d", len(hist), len(pairs))
			pairs = append(pairs, hist...)
		}
	}
	seed := uint64(1)
	if s := os.Getenv("JOURNAL_FUZZ_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = v
	}
	start := time.Now()
	total := editfuzz.NewTally()
	for i := 0; i*5000 < n; i++ {
		// each chunk's client, server and workspace go when it ends
		// (kept to the test's end, a long run held them all)
		root, err := os.MkdirTemp("", "editfuzz-sdk-")
		if err != nil {
			t.Fatal(err)
		}
		d := startDriver(t, root, "--watch=false")
		r := editfuzz.NewRunner(sdkCaller{d}, root)
		opts := editfuzz.Options{Trials: min(5000, n-i*5000), Seed: seed + uint64(i), Minimize: true}
		if dir := os.Getenv("JOURNAL_FUZZ_DUMP"); dir != "" {
			opts.Wrong = func(tr editfuzz.Trial, v editfuzz.Verdict) {
				if err := editfuzz.SaveWrong(dir, tr, v); err != nil {
					t.Error(err)
				}
			}
		}
		tally, err := editfuzz.Fuzz(r, pairs, opts)
		d.stop()
		if rmErr := os.RemoveAll(root); rmErr != nil {
			t.Error(rmErr)
		}
		if err != nil {
			t.Fatal(err)
		}
		total.Merge(tally)
		if n > 5000 {
			t.Logf("%d trials, %.0f s, %d wrong classes\n%s", total.Trials, time.Since(start).Seconds(), len(total.Classes), total.Table())
		}
	}
	total.Elapsed = time.Since(start)
	t.Logf("%d trials through the TypeScript SDK, seed %d, in %.1f s (%.0f trials/s)\n%s", total.Trials, seed,
		total.Elapsed.Seconds(), float64(total.Trials)/total.Elapsed.Seconds(), total.Table())
	for _, f := range total.ClassList() {
		if issue, ok := editfuzz.KnownFailures[f.Class]; ok {
			t.Logf("known failure (%s), %d×: %s", issue, f.Count, f.Class)
			continue
		}
		js, _ := json.MarshalIndent(f.Trial, "", "  ")
		t.Errorf("NEW WRONG CLASS, %d×: %s\n%s\nfirst (minimized) trial:\n%s", f.Count, f.Class, f.Detail, js)
	}
}
