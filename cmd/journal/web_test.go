package main_test

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
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
