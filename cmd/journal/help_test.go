package main_test

import (
	"regexp"
	"strings"
	"testing"
)

// flagLine is one line of a help's flag list: the flag, its value name (if any), then the usage after
// three or more spaces (pflag's column gap).
var flagLine = regexp.MustCompile(`^\s+(?:-\w, )?(--[\w-]+)(?: (.*?))?\s{3,}\S`)

// TestHelp_FlagValueNames runs --help on every command and subcommand and fails where a flag's value name is
// a phrase: pflag takes the first back-quoted words of a usage as the value's name, so a usage that quotes a
// command ("the one `journal checkpoint config` set") showed as "--key journal checkpoint config".
func TestHelp_FlagValueNames(t *testing.T) {
	dir := t.TempDir()
	seen := 0
	var walk func(path []string)
	walk = func(path []string) {
		out := ok(t, dir, append(append([]string{}, path...), "--help")...)
		seen++
		section := ""
		for _, line := range strings.Split(out, "\n") {
			switch {
			case strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " "):
				section = line
				continue
			case line == "":
				continue
			}
			switch section {
			case "Available Commands:":
				name := strings.Fields(line)[0]
				if name != "help" {
					walk(append(append([]string{}, path...), name))
				}
			case "Flags:", "Global Flags:":
				m := flagLine.FindStringSubmatch(line)
				if m == nil {
					continue // a usage's continuation line
				}
				if v := m[2]; strings.ContainsAny(v, " `") {
					t.Errorf("journal %s --help: flag %s shows its value as %q (a phrase from its usage's back-quotes):\n%s",
						strings.Join(path, " "), m[1], v, line)
				}
			}
		}
	}
	walk(nil)
	if seen < 30 {
		t.Fatalf("walked only %d commands' help", seen)
	}
	t.Logf("%d commands' help", seen)
}

// blame's help says what a line older than the journal shows, and it is so: a file that was there before
// the journal is owned by the baseline that found it, lines whose events a gc dropped by event 0.
func TestHelp_BlameOlderLines(t *testing.T) {
	help := ok(t, t.TempDir(), "blame", "--help")
	flat := strings.Join(strings.Fields(help), " ")
	if !strings.Contains(flat, `recorded it as found (the watcher's baseline, "first seen", or a catch-up)`) ||
		!strings.Contains(flat, `lines whose events a gc dropped show event 0`) {
		t.Fatalf("blame --help does not say which event owns lines older than the journal:\n%s", help)
	}
	dir := t.TempDir()
	files(t, dir, map[string]string{"old.txt": "one\ntwo\n"})
	ok(t, dir, "exec", "--", "true") // the journal is made: a baseline of old.txt
	evs := logJSON(t, dir)
	if len(evs) != 1 || evs[0]["tool"] != "watch.baseline" {
		t.Fatalf("events: %v", evs)
	}
	for _, line := range strings.Split(strings.TrimSpace(ok(t, dir, "blame", "--porcelain", "old.txt")), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && regexp.MustCompile(`^(\d+|\*) \d+$`).MatchString(line) && f[0] != "1" {
			t.Fatalf("a line of a file there before the journal is owned by %s, not the baseline (event 1):\n%s", f[0], line)
		}
	}
}
