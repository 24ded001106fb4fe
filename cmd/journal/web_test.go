package main_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/cookiejar"
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
	cmd, url := startWeb(t, dir)
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
	if r.code == 0 || !strings.Contains(r.stderr, "not a loopback address: give --token") {
		t.Fatalf("web --addr 0.0.0.0:0: exit %d\n%s", r.code, r.stderr)
	}
}

// startWeb runs `journal web` (or the command args name: team web) on a
// loopback port in dir and returns it and the URL it printed; the test's
// end kills it.
func startWeb(t *testing.T, dir string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	if len(args) == 0 {
		args = []string{"web"}
	}
	cmd := exec.Command(bin, append(args, "--addr", "127.0.0.1:0")...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
	}()
	select {
	case l := <-line:
		return cmd, strings.TrimSpace(strings.TrimPrefix(l, "journal web: "))
	case <-time.After(20 * time.Second):
		t.Fatal("journal web printed no URL")
	}
	return nil, ""
}

// webGet GETs url and returns its body, failing the test unless it is 200.
func webGet(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d\n%s", url, resp.StatusCode, b)
	}
	return string(b)
}

// TestWeb_CLIToken: `journal web --addr 0.0.0.0:0 --token T` serves beyond
// loopback, to requests that carry the token: the printed URL does (its
// token is swapped for a cookie), a request without it gets 401.
func TestWeb_CLIToken(t *testing.T) {
	dir := basicWorkspace(t)
	cmd := exec.Command(bin, "web", "--addr", "0.0.0.0:0")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "JOURNAL_WEB_TOKEN=tok-123")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Signal(os.Interrupt); cmd.Wait() }()
	l, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	printed := strings.TrimSpace(strings.TrimPrefix(l, "journal web: "))
	if !strings.HasSuffix(printed, "/?token=tok-123") {
		t.Fatalf("printed URL %q", printed)
	}
	u := strings.Replace(printed, "0.0.0.0", "127.0.0.1", 1) // [::] or 0.0.0.0: any address of this machine
	u = strings.Replace(u, "[::]", "127.0.0.1", 1)
	plain := strings.TrimSuffix(u, "?token=tok-123")
	resp, err := http.Get(plain)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("GET without the token: %d", resp.StatusCode)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if resp, err = c.Get(u); err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.RawQuery != "" || !strings.Contains(string(body), `href="/event/5"`) {
		t.Fatalf("GET with the token: %d at %s\n%s", resp.StatusCode, resp.Request.URL, body)
	}
	if resp, err = c.Get(plain + "event/5"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET with the cookie: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestWeb_BesideMCP: `journal serve --http ADDR --web` serves the web app at
// / and MCP at /mcp on one port.
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

}
