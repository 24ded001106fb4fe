package mcpclient

import (
	"os"
	"strings"
	"testing"
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
