package mcpclient

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseVmHWM(t *testing.T) {
	got, err := parseVmHWM(strings.NewReader("Name:\tx\nVmPeak:\t 999 kB\nVmHWM:\t    1234 kB\nVmRSS:\t 10 kB\n"))
	if err != nil || got != 1234*1024 {
		t.Fatalf("got %d, %v", got, err)
	}
	if _, err := parseVmHWM(strings.NewReader("Name:\tx\n")); err == nil {
		t.Fatal("no error without a VmHWM line")
	}
}

func TestVmHWM_Self(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	got, err := VmHWM(os.Getpid())
	if err != nil || got <= 0 {
		t.Fatalf("VmHWM(self) = %d, %v", got, err)
	}
}

func TestTail_KeepsLastBytes(t *testing.T) {
	tl := &tail{max: 5}
	tl.Write([]byte("abc"))
	tl.Write([]byte("defg"))
	if got := tl.String(); got != "cdefg" {
		t.Fatalf("tail = %q", got)
	}
}

// TestMain lets the test binary stand in for a server that never answers.
func TestMain(m *testing.M) {
	if os.Getenv("MCPCLIENT_HANG") == "1" {
		io.Copy(io.Discard, os.Stdin) // read requests, answer none
		select {}
	}
	os.Exit(m.Run())
}

// A Go server that does not answer in time is made to print its goroutines
// (SIGQUIT) before it is stopped, so the hang can be diagnosed.
func TestProcess_TimeoutDumpsGoroutines(t *testing.T) {
	p, err := Start([]string{os.Args[0], "-test.run=^$"}, t.TempDir(), []string{"MCPCLIENT_HANG=1"}, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	_, err = p.Request("ping", nil)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	<-p.done
	if s := p.Stderr(); !strings.Contains(s, "SIGQUIT") || !strings.Contains(s, "goroutine 1 ") {
		t.Fatalf("no goroutine dump in stderr:\n%s", p.Stderr())
	}
}
