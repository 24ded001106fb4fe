package main_test

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWeb_CLI: `journal web` prints its URL and serves the timeline until
// interrupted; a non-loopback --addr is refused with the reason.
func TestWeb_CLI(t *testing.T) {
	dir := basicWorkspace(t)
	cmd := exec.Command(bin, "web", "--addr", "127.0.0.1:0")
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
	}()
	var url string
	select {
	case l := <-line:
		url = strings.TrimSpace(strings.TrimPrefix(l, "journal web: "))
	case <-time.After(20 * time.Second):
		t.Fatal("journal web printed no URL")
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `href="/event/5"`) || !strings.Contains(string(body), "claude") {
		t.Fatalf("GET %s: %d\n%s", url, resp.StatusCode, body)
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("journal web after an interrupt: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("journal web did not stop on an interrupt")
	}

	r := run(t, dir, "web", "--addr", "0.0.0.0:0")
	if r.code == 0 || !strings.Contains(r.stderr, "not a loopback address") {
		t.Fatalf("web --addr 0.0.0.0:0: exit %d\n%s", r.code, r.stderr)
	}
}

// TestWeb_BesideMCP: `journal serve --http ADDR --web` serves the web app at
// / and MCP at /mcp on one port; on a non-loopback address --web is refused.
func TestWeb_BesideMCP(t *testing.T) {
	dir := basicWorkspace(t)
	addrFile := filepath.Join(t.TempDir(), "addr")
	cmd := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--web", "--lsp=false")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JOURNAL_ADDR_FILE="+addrFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	var addr []byte
	for deadline := time.Now().Add(20 * time.Second); len(addr) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("journal serve --http --web did not start")
		}
		addr, _ = os.ReadFile(addrFile)
	}
	resp, err := http.Get("http://" + string(addr) + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `href="/event/5"`) {
		t.Fatalf("GET /: %d\n%s", resp.StatusCode, body)
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	req, _ := http.NewRequest("POST", "http://"+string(addr)+"/mcp", strings.NewReader(init))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "serverInfo") {
		t.Fatalf("POST /mcp initialize: %d\n%s", resp.StatusCode, body)
	}

	r := run(t, dir, "serve", "--http", "0.0.0.0:0", "--web", "--token", "x", "--lsp=false")
	if r.code == 0 || !strings.Contains(r.stderr, "--web serves on a loopback address only") {
		t.Fatalf("serve --web on 0.0.0.0: exit %d\n%s", r.code, r.stderr)
	}
}
