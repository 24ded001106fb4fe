package main_test

import (
	"testing"
)

// TestGolden drives log, show, status and export on the golden workspace and
// compares their output with testdata/cli.
func TestGolden(t *testing.T) {
	dir := basicWorkspace(t)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"log.txt", []string{"log"}},
		{"log_oneline.txt", []string{"log", "--oneline"}},
		{"log_path.txt", []string{"log", "a.txt", "-n", "2"}},
		{"log_json.jsonl", []string{"log", "--json", "-n", "2"}},
		{"show_2.txt", []string{"show", "2"}},
		{"show_3.txt", []string{"show", "3"}},
		{"diff_range.txt", []string{"diff", "a.txt", "--from", "2", "--to", "5"}},
		{"status.txt", []string{"status"}},
		{"blame_a.txt", []string{"blame", "a.txt"}},
		{"blame_a_at_2.txt", []string{"blame", "a.txt", "--at", "2"}},
		{"blame_porcelain.txt", []string{"blame", "--porcelain", "a.txt"}},
		{"blame_json.json", []string{"blame", "--json", "a.txt"}},
		{"export.jsonl", []string{"export"}},
		{"export.csv", []string{"export", "--format", "csv"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			golden(t, c.name, normalize(t, dir, ok(t, dir, c.args...)))
		})
	}
}
