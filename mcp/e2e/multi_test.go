package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/journalfs/journal/journal"
)

// TestRaw_UnknownMethodBeforeInitialize: -32601 for unknown methods, even before initialize.
func TestRaw_UnknownMethodBeforeInitialize(t *testing.T) {
	r := startStdio(t, t.TempDir())
	resp := r.request("no/such/method", map[string]any{})
	if e, _ := resp["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
		t.Fatalf("before initialize: %v", resp)
	}
	r.initialize("raw")
	resp = r.request("another/unknown", map[string]any{})
	if e, _ := resp["error"].(map[string]any); e == nil || e["code"] != float64(-32601) {
		t.Fatalf("after initialize: %v", resp)
	}
	if resp := r.request("logging/setLevel", map[string]any{"level": "debug"}); resp["error"] != nil {
		t.Fatalf("logging/setLevel: %v", resp)
	}
}

// TestTwoServers_OneWorkspace: two servers append to one file while the CLI
// reads the log in between; every edit is journaled exactly once, none lost.
func TestTwoServers_OneWorkspace(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "shared.txt"), nil, 0o644)
	servers := []*rpc{startStdio(t, root), startStdio(t, root)}
	for i, s := range servers {
		s.initialize(fmt.Sprintf("agent-%d", i))
	}
	const each = 40
	var wg sync.WaitGroup
	errs := make(chan error, 2*each)
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < each; k++ {
				res := s.tool("file_insert_text", map[string]any{"ops": []map[string]any{{"path": "shared.txt", "content": fmt.Sprintf("server %d edit %d", i, k), "at": "eof"}}})
				if res["isError"] == true {
					errs <- fmt.Errorf("server %d edit %d: %v", i, k, res["content"])
				}
			}
		}()
	}
	for k := 0; k < 5; k++ {
		runJournal(t, root, "log", "-n", "5", "--no-pager")
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	lines := strings.Split(strings.TrimSpace(readFile(t, filepath.Join(root, "shared.txt"))), "\n")
	if len(lines) != 2*each {
		t.Fatalf("%d lines, want %d", len(lines), 2*each)
	}
	for _, s := range servers {
		s.close()
	}
	j, err := journal.Open(filepath.Join(root, journal.DirName, journal.FileName), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	applies := 0
	err = j.View(func(tx *journal.Tx) error {
		if _, err := tx.Verify(true, nil); err != nil {
			return err
		}
		return tx.Each(0, false, func(ev *journal.Event) error {
			if ev.Kind == journal.KindApply && ev.Status == journal.StatusCommitted {
				applies++
			}
			return nil
		})
	})
	if err != nil || applies != 2*each {
		t.Fatalf("%d committed applies (want %d): %v", applies, 2*each, err)
	}
}

// TestHTTP_Guards: Host and Origin validation and the bearer token.
func TestHTTP_Guards(t *testing.T) {
	root := t.TempDir()
	url := startHTTP(t, root, "--token", "s3cret")
	post := func(mut func(*http.Request)) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"guard","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer s3cret")
		mut(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post(func(r *http.Request) { r.Host = "evil.example:80" }); c != http.StatusForbidden {
		t.Errorf("foreign Host: %d", c)
	}
	if c := post(func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }); c != http.StatusForbidden {
		t.Errorf("foreign Origin: %d", c)
	}
	if c := post(func(r *http.Request) { r.Header.Del("Authorization") }); c != http.StatusUnauthorized {
		t.Errorf("no token: %d", c)
	}
	if c := post(func(r *http.Request) { r.Header.Set("Authorization", "Bearer wrong") }); c != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", c)
	}
	if c := post(func(r *http.Request) { r.Header.Set("Origin", "http://localhost:3000") }); c >= 400 {
		t.Errorf("good request refused: %d", c)
	}
}

// TestServe_SyncFiles: by default a small edit commits through the
// write-ahead log (.journal/journal.db.wal appears); with --sync-files it
// commits by a bbolt intent with its files fsynced (no log file). Both are
// journaled the same.
func TestServe_SyncFiles(t *testing.T) {
	for _, c := range []struct {
		args []string
		wal  bool
	}{{nil, true}, {[]string{"--sync-files"}, false}} {
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo\n"), 0o644)
		r := startStdio(t, root, c.args...)
		r.initialize("sync")
		res := r.tool("edit_content", map[string]any{"absolute_file_path": filepath.Join(root, "a.txt"),
			"search_text": "two", "replace_text": "2", "preview": false})
		if res["isError"] == true {
			t.Fatalf("%v: %v", c.args, res)
		}
		r.close()
		if got := readFile(t, filepath.Join(root, "a.txt")); got != "one\n2\n" {
			t.Fatalf("%v: a.txt %q", c.args, got)
		}
		_, err := os.Stat(filepath.Join(root, ".journal", "journal.db.wal"))
		if (err == nil) != c.wal {
			t.Fatalf("%v: log file exists %v, want %v", c.args, err == nil, c.wal)
		}
		if out := runJournal(t, root, "log", "--oneline"); !strings.Contains(out, "edit_content") {
			t.Fatalf("%v: log:\n%s", c.args, out)
		}
	}
}
