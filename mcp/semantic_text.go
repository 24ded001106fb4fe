package mcp

import (
	"fmt"
	"strings"
)

// editSummary is the one-line summary of a file_edit result.
func editSummary(out *FileEditResult, p *editPlan) string {
	counts := map[string]int{}
	for _, it := range out.DetectedIntents {
		counts[it.Type]++
	}
	var parts []string
	for _, t := range []string{"rename", "delete", "add", "body_change"} {
		if counts[t] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[t], strings.ReplaceAll(t, "_", " ")))
		}
	}
	what := "edit applied"
	switch {
	case out.DryRun:
		what = "dry run, nothing written"
	case out.Unchanged:
		what = "no change: the code equals what the file already has, nothing was written"
	}
	if len(parts) > 0 {
		what += ": " + strings.Join(parts, ", ")
	}
	syntaxErrs, typeErrs := 0, 0
	for _, d := range newOnly(out.RemainingErrors) {
		if d.Source == "tree-sitter" {
			syntaxErrs++
		} else {
			typeErrs++
		}
	}
	if n := len(out.Propagated); n > 0 {
		what += fmt.Sprintf("; %d rename(s) propagated", n)
	}
	if n := len(out.AutoFixed); n > 0 {
		what += fmt.Sprintf("; %d quick fix(es) applied", n)
	}
	if syntaxErrs > 0 {
		what += fmt.Sprintf("; %d new syntax error(s) allowed", syntaxErrs)
	}
	if typeErrs > 0 {
		what += fmt.Sprintf("; %d new problem(s) reported by the language server", typeErrs)
	}
	return what
}

// editText renders a file_edit result like seed 000's examples.
func editText(out *FileEditResult, p *editPlan, in *FileEditIn) string {
	var b strings.Builder
	target := out.File
	switch {
	case in.Target != "":
		target = in.Target
	case p.what == "lines":
		target = fmt.Sprintf("%s lines %d-%d", out.File, p.reg.from, p.reg.to)
	}
	headline := ""
	types := map[string]bool{}
	for _, it := range out.DetectedIntents {
		types[it.Type] = true
	}
	switch {
	case types["rename"]:
		headline = " (rename detected)"
	case types["delete"]:
		headline = " (delete detected)"
	}
	newErrs := newOnly(out.RemainingErrors)
	if len(newErrs) > 0 {
		headline = " (errors detected)"
	}
	verb := "Applied edit to"
	switch {
	case out.DryRun:
		verb = "Dry run of an edit to"
	case out.Unchanged:
		verb = "No change to"
	}
	fmt.Fprintf(&b, "## file_edit: %s %s%s\n\n", verb, target, headline)
	status := "✅ **Success** — "
	switch {
	case len(newErrs) > 0:
		status = "⚠️ **Partial Success** — "
	case out.Unchanged:
		status = "ℹ️ **Nothing to do** — "
	}
	b.WriteString(status + out.Summary + "\n\n")

	var renames, changes []string
	for _, it := range out.DetectedIntents {
		switch it.Type {
		case "rename":
			renames = append(renames, fmt.Sprintf("Rename `%s` → `%s`", it.Symbol, strings.TrimPrefix(it.Details, "renamed to ")))
		case "body_change":
			changes = append(changes, fmt.Sprintf("- Replaced body of `%s` (%s) in %s", lastSegment(it.Symbol), it.Kind, out.File))
		case "delete":
			changes = append(changes, fmt.Sprintf("- Deleted `%s` (%s)", it.Symbol, it.Kind))
		case "add":
			changes = append(changes, fmt.Sprintf("- Added `%s` (%s) at line %d", it.Symbol, it.Kind, it.Line))
		}
	}
	for _, r := range renames {
		fmt.Fprintf(&b, "**Detected Intent:** %s\n", r)
	}
	if len(renames) > 0 {
		b.WriteString("\n")
	}
	if len(changes) > 0 {
		b.WriteString("**Changes:**\n" + strings.Join(changes, "\n") + "\n\n")
	} else if len(renames) == 0 {
		fmt.Fprintf(&b, "**Changes:**\n- Replaced lines %d-%d of %s (no symbol changed)\n\n", p.reg.from, p.reg.to, out.File)
	}
	if len(out.Propagated) > 0 {
		b.WriteString("**Auto-Propagated:**\n")
		for _, pr := range out.Propagated {
			fmt.Fprintf(&b, "- Renamed `%s` → `%s` across %d other file(s) (%d edits)", pr.Symbol, pr.NewName, len(pr.FilesAffected), pr.TotalEdits)
			if len(pr.FilesAffected) > 0 {
				fmt.Fprintf(&b, ": %s", strings.Join(pr.FilesAffected, ", "))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if len(out.AutoFixed) > 0 {
		b.WriteString("**Auto-Fixed:**\n")
		for _, f := range out.AutoFixed {
			fmt.Fprintf(&b, "- %s: %s\n", f.File, f.Fix)
		}
		b.WriteString("\n")
	}
	for _, imp := range out.ImpactScope {
		if len(imp.Files) == 0 {
			fmt.Fprintf(&b, "**Impact scope (%s of `%s`):** no other mentions in the workspace\n\n", imp.Intent, imp.Symbol)
			continue
		}
		fmt.Fprintf(&b, "**Impact scope (%s of `%s`):** still mentioned in %d file(s) — not propagated; update them:\n", imp.Intent, imp.Symbol, len(imp.Files))
		for _, f := range imp.Files {
			fmt.Fprintf(&b, "- %s: line(s) %s\n", f.File, joinInts(f.Lines))
		}
		if imp.Truncated {
			b.WriteString("- (workspace scan stopped at its file limit)\n")
		}
		b.WriteString("\n")
	}
	if len(newErrs) > 0 {
		fmt.Fprintf(&b, "**Remaining Errors (%d):**\n", len(newErrs))
		for i, d := range newErrs {
			fmt.Fprintf(&b, "%d. %s:%d — %s (%s, %s)\n", i+1, d.File, d.Line, d.Message, d.Severity, d.Source)
		}
		b.WriteString("\n")
	} else if p.checked {
		fmt.Fprintf(&b, "**Safety Check:** 0 new errors detected (%d remaining)\n\n", len(out.RemainingErrors))
	} else {
		b.WriteString("**Safety Check:** not checked (language not supported)\n\n")
	}
	for _, n := range out.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	if len(out.Notes) > 0 {
		b.WriteString("\n")
	}
	if out.DryRun {
		b.WriteString(out.Diff)
	} else if out.Event > 0 {
		fmt.Fprintf(&b, "journal event %d, version %s\n", out.Event, out.Version)
	}
	for _, l := range out.Context {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	return b.String()
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}
