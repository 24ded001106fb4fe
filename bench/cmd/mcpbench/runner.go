package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/journalfs/journal/bench/mcpclient"
	"github.com/journalfs/journal/bench/report"
	"github.com/journalfs/journal/bench/stats"
)

// outcome accumulates one target's runs of one workload.
type outcome struct {
	series  map[string][]time.Duration
	order   []string
	rss     int64
	history int64
	edits   int
	reply   int
	used    map[string]string
	failed  string
}

// runWorkload runs w on every target, rounds times, alternating the order.
func (b *bench) runWorkload(w workload) (report.Workload, []string) {
	out := map[string]*outcome{}
	for _, t := range b.targets {
		out[t] = &outcome{series: map[string][]time.Duration{}, used: map[string]string{}}
	}
	for r := 0; r < b.cfg.rounds; r++ {
		order := slices.Clone(b.targets)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, t := range order {
			o := out[t]
			if w.na[t] != "" || o.failed != "" {
				continue
			}
			t0 := time.Now()
			err := b.runOnce(w, t, fmt.Sprint(r), o)
			if err != nil && b.retry && errors.Is(err, mcpclient.ErrTimeout) {
				b.retried = append(b.retried, fmt.Sprintf("%s/%s round %d: %v", w.id, t, r+1, err))
				b.logf("%-10s %-13s round %d TIMED OUT, running it again with a fresh server: %v", w.id, t, r+1, err)
				t0 = time.Now()
				err = b.runOnce(w, t, fmt.Sprintf("%d-retry", r), o)
			}
			if err != nil {
				o.failed = fmt.Sprintf("round %d: %v", r+1, err)
				b.logf("%-10s %-13s round %d FAILED: %v", w.id, t, r+1, err)
				continue
			}
			b.logf("%-10s %-13s round %d ok in %.1f s", w.id, t, r+1, time.Since(t0).Seconds())
		}
	}
	return b.summarize(w, out)
}

// runOnce is one run: fresh workspace, fresh server, the workload, checks.
func (b *bench) runOnce(w workload, target, run string, o *outcome) error {
	ws := filepath.Join(b.workdir, fmt.Sprintf("%s-%s-%s", w.id, strings.ReplaceAll(target, "+", "-"), run))
	if err := os.Mkdir(ws, 0o755); err != nil {
		return err
	}
	if !b.keep {
		defer os.RemoveAll(ws + ".shadow.git")
		defer os.RemoveAll(ws)
	}
	runFn, err := w.prepare(ws)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	syscall.Sync() // the fixture's writeback must not land in the timings
	s, err := b.sv.start(target, ws)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	b.infos[target] = s.info
	err = runFn(s)
	rss := s.close()
	if s.hang != "" {
		b.logf("%-10s %-13s run %s: the server did not answer in time; its stderr (for journal, a goroutine dump):\n%s", w.id, target, run, s.hang)
	}
	if err != nil {
		return err
	}
	for _, op := range s.order {
		if _, ok := o.series[op]; !ok {
			o.order = append(o.order, op)
		}
		o.series[op] = append(o.series[op], s.series[op]...)
	}
	o.rss = max(o.rss, rss)
	o.history += s.history()
	o.edits += s.edits
	o.reply = s.reply
	for k, v := range s.used {
		o.used[k] = v
	}
	return nil
}

var opNames = map[string]string{"edit": "edit", "read": "read", "batch": "whole batch", "revert": "revert", "log": "log of 20"}

// summarize turns the outcomes into table rows.
func (b *bench) summarize(w workload, out map[string]*outcome) (report.Workload, []string) {
	wr := report.Workload{ID: w.id, Title: w.title, Method: slices.Clone(w.method)}
	var failed []string
	var ops []string
	for _, t := range b.targets {
		for _, op := range out[t].order {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
		if out[t].failed != "" {
			failed = append(failed, fmt.Sprintf("%s/%s: %s", w.id, t, out[t].failed))
		}
	}
	// value builds one cell from a target's outcome.
	value := func(t string, f func(o *outcome) (float64, bool), na string) report.Value {
		o, ran := out[t]
		switch {
		case w.na[t] != "":
			return report.Value{NA: w.na[t]}
		case !ran:
			return report.Value{NA: "not run"}
		case o.failed != "":
			return report.Value{Failed: o.failed}
		}
		v, ok := f(o)
		if !ok {
			return report.Value{NA: na}
		}
		return report.Num(v)
	}
	row := func(name, unit string, f func(o *outcome) (float64, bool), na string) {
		m := report.Metric{Name: name, Unit: unit, Values: map[string]report.Value{}}
		for _, t := range []string{report.Ours, report.Ref, report.RefGit} {
			m.Values[t] = value(t, f, na)
		}
		wr.Metrics = append(wr.Metrics, m)
	}
	for _, op := range ops {
		name := opNames[op]
		if name == "" {
			name = op
		}
		sum := func(o *outcome) (stats.Summary, bool) {
			xs := o.series[op]
			return stats.Of(xs), len(xs) > 0
		}
		na := "has no such operation"
		if op == "log" {
			na = "keeps no history"
		}
		row(name+" median", "ms", func(o *outcome) (float64, bool) { s, ok := sum(o); return s.Median, ok }, na)
		row(name+" p95", "ms", func(o *outcome) (float64, bool) { s, ok := sum(o); return s.P95, ok }, na)
	}
	if slices.Contains(ops, "read") {
		row("reply size", "KiB", func(o *outcome) (float64, bool) { return float64(o.reply) / 1024, o.reply > 0 }, "")
	}
	row("peak RSS", "MiB", func(o *outcome) (float64, bool) { return float64(o.rss) / (1 << 20), o.rss > 0 }, "not measured")
	if w.mutates {
		row("history", "B/edit", func(o *outcome) (float64, bool) {
			if o.edits == 0 {
				return 0, false
			}
			return float64(o.history) / float64(o.edits), true
		}, "")
	}
	// the tools actually used, per target; targets that used the same are merged
	var groups []string
	byUse := map[string][]string{}
	for _, t := range b.targets {
		var used []string
		for _, op := range ops {
			if u := out[t].used[op]; u != "" {
				used = append(used, u)
			}
		}
		if len(used) == 0 {
			continue
		}
		u := strings.Join(used, "; ")
		if _, ok := byUse[u]; !ok {
			groups = append(groups, u)
		}
		byUse[u] = append(byUse[u], "`"+t+"`")
	}
	for _, u := range groups {
		wr.Method = append(wr.Method, fmt.Sprintf("%s used: %s.", strings.Join(byUse[u], ", "), u))
	}
	return wr, failed
}

// machine describes this machine for the report.
func machine(dir string) report.Machine {
	m := report.Machine{Cores: runtime.NumCPU(), Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) >= 2 && f[0] == "MemTotal:" {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				m.MemoryGiB = int((kb + 1<<19) >> 20)
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.Disk = fsType(dir)
	if out, err := exec.Command("node", "--version").Output(); err == nil {
		m.Node = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "--version").Output(); err == nil {
		m.Git = strings.TrimSpace(string(out))
	}
	return m
}

// fsType names the filesystem dir is on, from its statfs magic number.
func fsType(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return "unknown"
	}
	names := map[int64]string{0xEF53: "ext4", 0x58465342: "xfs", 0x9123683E: "btrfs", 0x01021994: "tmpfs", 0x794c7630: "overlayfs", 0x6a656a63: "virtiofs"}
	if n, ok := names[int64(st.Type)]; ok {
		return n
	}
	return fmt.Sprintf("fs 0x%x", st.Type)
}
