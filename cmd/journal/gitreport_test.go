package main_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// reportRepo is a repository (journal git installed) whose range
// base..HEAD holds: an agent's MCP edit (Claude Code's hook session, its
// prompt naming a password) writing m.txt's three lines, a person's line
// and an outside line, committed; then a person's commit rewriting one of
// the agent's lines. It returns the repository, base and the prompt's id.
func reportRepo(t *testing.T) (dir, base, prompt string) {
	dir = committedRepo(t, map[string]string{".gitignore": ".journal/\n", "m.txt": "m\n"})
	ok(t, dir, "exec", "--", "true") // the journal, with its baseline
	ok(t, dir, "git", "install")
	base = strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))
	prompt = "7d0c2a1e-5b6f-4c3d-9e8f-0a1b2c3d4e5f"
	c, stderr := serveStdio(t, dir, "claude-code", "--watch=false")
	args := map[string]any{"absolute_file_path": filepath.Join(dir, "m.txt"), "search_text": "m\n", "replace_text": "M1\nM2\nM3\n", "preview": false}
	hook := func(event string, extra map[string]any) {
		t.Helper()
		m := map[string]any{"session_id": "S-report", "cwd": dir, "hook_event_name": event, "prompt_id": prompt}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		if r := hookRun(t, dir, false, string(b), "hook", "claude-code"); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Fatalf("%s: exit %d, stdout %q, stderr %q", event, r.code, r.stdout, r.stderr)
		}
	}
	hook("SessionStart", map[string]any{"model": "claude-sonnet-5"})
	hook("UserPromptSubmit", map[string]any{"prompt": "rewrite m.txt | the db password is Xk9mQ2vL7pR4zTq8"})
	call := map[string]any{"tool_name": "mcp__journal__edit_content", "tool_input": args, "tool_use_id": "toolu_report"}
	hook("PreToolUse", call)
	req := mcp.CallToolRequest{}
	req.Params.Name, req.Params.Arguments = "edit_content", args
	if res, err := c.CallTool(context.Background(), req); err != nil || res.IsError {
		t.Fatalf("edit_content: %v %+v\n%s", err, res, stderr)
	}
	hook("PostToolUse", call)
	c.Close() // the server seals its events as it ends
	write(t, dir, human, "p.txt", "person\n")
	files(t, dir, map[string]string{"u.txt": "outside\n"})
	gitEnvIn(t, dir, nil, "add", "-A")
	gitEnvIn(t, dir, nil, "commit", "-qm", "agent, person and outside lines")
	write(t, dir, human, "m.txt", "M1\nM2 reviewed\nM3\n")
	gitEnvIn(t, dir, nil, "commit", "-qam", "review rewrites one agent line")
	return dir, base, prompt
}

// git stats --markdown, the summary a CI step posts on a pull request:
// 6 lines added in the range (3 by the agent's MCP call, 1 by a person, 1
// outside, 1 by the person's review), the agent's share per agent and
// model, 2 of the 3 agent lines still at the tip (the review rewrote one),
// the session and the prompt its call served, the prompt's text masked,
// every cell's Markdown escaped.
func TestGitStats_Markdown(t *testing.T) {
	dir, base, prompt := reportRepo(t)
	head := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))
	out := ok(t, dir, "git", "stats", "--markdown", base+"..HEAD")
	var js struct {
		Total struct {
			Sessions []struct {
				ID string `json:"session_id"`
			}
			Prompts []struct {
				Prompt          string
				Lines, Survived int
			}
		}
	}
	if err := json.Unmarshal([]byte(ok(t, dir, "git", "stats", "--json", base+"..HEAD")), &js); err != nil || len(js.Total.Sessions) != 1 {
		t.Fatalf("json: %v %+v", err, js)
	}
	// the MCP server's session (the note names the MCP client's session),
	// the model the agent's hooks gave the call
	sess := js.Total.Sessions[0].ID
	if !strings.HasPrefix(sess, "stdio-") {
		t.Errorf("session %q", sess)
	}
	if p := js.Total.Prompts; len(p) != 1 || p[0].Prompt != prompt || p[0].Lines != 3 || p[0].Survived != 2 {
		t.Errorf("json prompts %+v", p)
	}
	want := "### Who wrote these lines (journal)\n\n" +
		"`" + base + "..HEAD` (tip `" + head[:10] + "`): 2 commits, 2 with a note; **6 lines added**, 50.0% by agents.\n\n" +
		"| who | model | lines added | share | still in the tip |\n" +
		"| --- | --- | ---: | ---: | ---: |\n" +
		"| agent claude-code | claude-sonnet-5 | 3 | 50.0% | 2 |\n" +
		"| people | – | 2 | 33.3% | – |\n" +
		"| untracked | – | 1 | 16.7% | – |\n" +
		"\n**Survived review:** 2 of 3 agent lines (66.7%) reached `" + head[:10] + "` unchanged, as git blame says; changed or removed within the range: 1.\n" +
		"\n| session | agent | model | lines | survived |\n" +
		"| --- | --- | --- | ---: | ---: |\n" +
		"| " + sess + " | claude-code | claude-sonnet-5 | 3 | 2 |\n" +
		"\n| prompt | session | lines | survived |\n" +
		"| --- | --- | ---: | ---: |\n" +
		"| " + prompt[:13] + ": rewrite m.txt \\| the db password is …\\[secret: credential-a... | " + sess + " | 3 | 2 |\n"
	if out != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", out, want)
	}
	if strings.Contains(out, "Xk9mQ2vL7pR4zTq8") {
		t.Errorf("the prompt's secret is in the report:\n%s", out)
	}
	if r := run(t, dir, "git", "stats", "--markdown", "--json"); r.code != 2 || !strings.Contains(r.stderr, "alternatives") {
		t.Errorf("--markdown --json: exit %d %q", r.code, r.stderr)
	}
}

// The report job of docs/ci/github-actions-journal-report.yml, its scripts
// as they are: the shell step, in a clone of a bare repository the
// developer pushed to (no journal there: prompts by id), writes what
// `journal git stats --markdown BASE..HEAD` prints, and the job's summary;
// the github-script step (node, a fake GitHub client) creates the comment,
// then updates the bot's own comment of the same title and no other.
func TestGitStats_ReportWorkflow(t *testing.T) {
	dir, base, prompt := reportRepo(t)
	head := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))
	bare := filepath.Join(t.TempDir(), "origin.git")
	gitEnvInAllow(t, t.TempDir(), "clone", "-q", "--bare", dir, bare)
	gitEnvInAllow(t, dir, "push", "-q", bare, "refs/notes/ai")
	ci := filepath.Join(t.TempDir(), "ci")
	gitEnvInAllow(t, t.TempDir(), "clone", "-q", bare, ci)
	summary := filepath.Join(t.TempDir(), "summary.md")
	cmd := exec.Command("bash", "-c", ciBlock(t, "github-actions-journal-report.yml", "# --- journal-report script begin", "# --- journal-report script end"))
	cmd.Dir = ci
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"JOURNAL_BASE="+base, "JOURNAL_HEAD="+head, "GITHUB_STEP_SUMMARY="+summary)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the report script: %v\n%s", err, out)
	}
	report, err := os.ReadFile(filepath.Join(ci, "journal-report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := ok(t, ci, "git", "stats", "--markdown", base+".."+head); string(report) != want {
		t.Errorf("journal-report.md:\n%s\nwant:\n%s", report, want)
	}
	for _, w := range []string{"**6 lines added**, 50.0% by agents.", "| agent claude-code | claude-sonnet-5 | 3 | 50.0% | 2 |",
		"**Survived review:** 2 of 3 agent lines (66.7%)", "| " + prompt[:13] + " | stdio-"} {
		if !strings.Contains(string(report), w) {
			t.Errorf("journal-report.md lacks %q:\n%s", w, report)
		}
	}
	if s, _ := os.ReadFile(summary); string(s) != string(report) {
		t.Errorf("the job's summary %q", s)
	}

	js := ciBlock(t, "github-actions-journal-report.yml", "// --- journal-comment script begin", "// --- journal-comment script end")
	harness := `const calls = [];
const existing = JSON.parse(process.env.COMMENTS);
const github = {
  paginate: async (fn, args) => { calls.push(['list', args.owner, args.repo, args.issue_number]); return existing; },
  rest: { issues: {
    listComments: () => {},
    updateComment: async a => { calls.push(['update', a.comment_id, a.body]); },
    createComment: async a => { calls.push(['create', a.issue_number, a.body]); },
  } },
};
const context = { repo: { owner: 'o', repo: 'r' }, issue: { number: 7 } };
(async () => {
` + js + `})().then(() => console.log(JSON.stringify(calls)), e => { console.error(e); process.exit(1); });
`
	comment := func(existing string) [][]any {
		t.Helper()
		cmd := exec.Command("node", "-e", harness)
		cmd.Dir = ci
		cmd.Env = append(os.Environ(), "COMMENTS="+existing)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the comment script: %v\n%s", err, out)
		}
		var calls [][]any
		if err := json.Unmarshal(out, &calls); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return calls
	}
	if calls := comment("[]"); len(calls) != 2 || calls[1][0] != "create" || calls[1][1] != float64(7) || calls[1][2] != string(report) {
		t.Errorf("no comment yet: %v", calls)
	}
	title := strings.SplitN(string(report), "\n", 2)[0]
	others, _ := json.Marshal([]map[string]any{
		{"id": 1, "user": map[string]any{"type": "User"}, "body": title + "\nquoted by a person"},
		{"id": 2, "user": map[string]any{"type": "Bot"}, "body": "another bot's"},
		{"id": 3, "user": map[string]any{"type": "Bot"}, "body": title + "\nthe last push's"},
	})
	if calls := comment(string(others)); len(calls) != 2 || calls[1][0] != "update" || calls[1][1] != float64(3) || calls[1][2] != string(report) {
		t.Errorf("an earlier report: %v", calls)
	}
}

// docs/ci/github-actions-journal-report.yml is a workflow: GitHub's keys
// in place, no tab in its indentation, and every journal command its
// scripts run, with each of its flags, is one the binary's help names.
func TestGitStats_ReportWorkflowCommands(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "ci", "github-actions-journal-report.yml"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, w := range []string{"\nname: journal report\n", "\non:\n  pull_request:\n  push:\n    branches: [main]\n", "\njobs:\n  report:\n",
		"\n  notes:\n", "      pull-requests: write", "      contents: write", "          fetch-depth: 0\n", "uses: actions/github-script@v7"} {
		if !strings.Contains(text, w) {
			t.Errorf("the workflow lacks %q", w)
		}
	}
	if strings.Contains(text, "\t") {
		t.Errorf("a tab in the workflow (YAML indents with spaces)")
	}
	flag := regexp.MustCompile(`--[a-z][a-z-]*`)
	seen := 0
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "journal ") {
			continue
		}
		seen++
		var words []string
		for _, w := range strings.Fields(l)[1:] {
			if !regexp.MustCompile(`^[a-z][a-z-]*$`).MatchString(w) {
				break
			}
			words = append(words, w)
		}
		help := ok(t, t.TempDir(), append(words, "--help")...)
		if !strings.Contains(help, "journal "+strings.Join(words[:2], " ")) {
			t.Errorf("%q: no such command:\n%s", l, help)
		}
		for _, f := range flag.FindAllString(l, -1) {
			if !strings.Contains(help, "  "+f+" ") && !strings.Contains(help, ", "+f+" ") {
				t.Errorf("%q: journal %s has no %s:\n%s", l, strings.Join(words, " "), f, help)
			}
		}
	}
	if seen != 3 { // git stats --markdown, remote add, git note --remote
		t.Errorf("%d journal commands in the workflow, want 3", seen)
	}
}
