package floor

import (
	"syscall"
	"time"
)

// CPU is CPU time used by the process, in user space and in the kernel.
type CPU struct{ User, Sys time.Duration }

// CPUNow returns the CPU time (getrusage RUSAGE_SELF) the process has used so
// far. Between two calls around an operation it is the operation's CPU cost,
// plus whatever else the process ran meanwhile (the garbage collector's share).
func CPUNow() CPU {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return CPU{}
	}
	return CPU{time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())}
}

// Add returns c plus the CPU time from start to end.
func (c CPU) Add(end, start CPU) CPU {
	return CPU{c.User + end.User - start.User, c.Sys + end.Sys - start.Sys}
}

// Report reports c divided by n as two benchmark metrics, <name>-user-µs and <name>-sys-µs.
func (c CPU) Report(b interface{ ReportMetric(float64, string) }, name string, n int) {
	b.ReportMetric(float64(c.User.Microseconds())/float64(n), name+"-user-µs")
	b.ReportMetric(float64(c.Sys.Microseconds())/float64(n), name+"-sys-µs")
}
