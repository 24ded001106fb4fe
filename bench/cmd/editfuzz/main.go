// Command editfuzz turns a unified diff between two versions of a package
// (or a repository's history) into the edit fuzzer's pairs, one JSON line
// each (package bench/editfuzz; the committed corpus in
// testdata/editfuzz/corpus was made with it, the commands in its README).
//
//	diff -ruN -U20 OLD NEW | go run ./bench/cmd/editfuzz -source mod@v1..v2 -max 40 >> testdata/editfuzz/corpus/x.jsonl
//	go run ./bench/cmd/editfuzz -git . -commits 300 -max 200
//
// At most -per-file pairs of one file are kept, and -max in all, chosen by
// a fixed seed so the same input gives the same lines.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"

	"github.com/journalfs/journal/bench/editfuzz"
)

func main() {
	source := flag.String("source", "", "where the diff comes from (module@old..new)")
	git := flag.String("git", "", "take the pairs from this repository's history instead of stdin")
	commits := flag.Int("commits", 300, "with -git: how many commits back")
	maxN := flag.Int("max", 40, "at most this many pairs")
	perFile := flag.Int("per-file", 3, "at most this many pairs of one file")
	only := flag.String("only", "", "keep only files with this extension (.yml)")
	flag.Parse()
	var pairs []editfuzz.Pair
	if *git != "" {
		var err error
		if pairs, err = editfuzz.GitHistory(*git, *commits); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	} else {
		diff, err := io.ReadAll(os.Stdin)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pairs = editfuzz.FromUnifiedDiff(diff, *source)
	}
	exts := map[string]bool{}
	for _, l := range editfuzz.Languages {
		exts[l] = true
	}
	pairs = slices.DeleteFunc(pairs, func(p editfuzz.Pair) bool { return !exts[p.Ext()] || *only != "" && p.Ext() != *only })
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	n := map[string]int{}
	enc := json.NewEncoder(os.Stdout)
	kept := 0
	for _, p := range pairs {
		if kept == *maxN || n[p.Path] == *perFile {
			continue
		}
		n[p.Path]++
		kept++
		if err := enc.Encode(p); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	fmt.Fprintf(os.Stderr, "%d pairs of %d\n", kept, len(pairs))
}
