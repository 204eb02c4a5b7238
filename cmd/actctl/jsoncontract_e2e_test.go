package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// contractConfig has two agents on two backends, a skill, a prompt with a
// variable, an MCP server, a command and a hook: every list of every
// command's JSON has something in it.
const contractConfig = `package actant

templates: cur: {backend: "cursor", permissions: "readonly"} // a warning
agents: cur: {template: "cur", workDir: "cur"}

skills: notes: {description: "Notes", content: "Take notes."}
prompts: p: {content: "Work on {{project}}.", variables: ["project"]}
mcpServers: fs: {command: "mcp-fs", args: ["."]}
commands: lint: {description: "Lint", content: "Run the linter."}
templates: dev: {backend: "claude-code", skills: ["notes"], prompts: ["p"], mcpServers: ["fs"], commands: ["lint"], vars: project: "x"}
templates: ops: {backend: "codex", prompts: ["p"], vars: project: "y", permissions: "readonly"}
agents: dev: template: "dev"
agents: ops: {template: "ops", workDir: "ops"}
hooks: bare: {on: "agent:destroyed", run: command: "true"}
`

// TestJSONContract decodes the -o json output of every command that has a
// row in docs/json.md and checks it against that row (checkDocumented:
// every key documented, every required key present) and that no list is
// null (issue #22 item 13).
func TestJSONContract(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	os.Mkdir(filepath.Join(dir, "ops"), 0o755)
	os.Mkdir(filepath.Join(dir, "cur"), 0o755)
	writeConfig(t, dir, contractConfig)
	for _, tc := range []struct {
		doc  string   // the row of docs/json.md
		args []string // the command after -o json
	}{
		{"version", []string{"version"}},
		{"validate", []string{"validate"}},
		{"explain", []string{"explain", "templates.permissions"}},
		{"get agents", []string{"get", "agents"}},
		{"get templates", []string{"get", "templates"}},
		{"get backends", []string{"get", "backends"}},
		{"get skills", []string{"get", "skills"}},
		{"get prompts", []string{"get", "prompts"}},
		{"get commands", []string{"get", "commands"}},
		{"get hooks", []string{"get", "hooks"}},
		{"get mcp", []string{"get", "mcp"}},
		{"apply --dry-run", []string{"apply", "--dry-run"}},
		{"diff", []string{"diff"}},
		{"apply", []string{"apply"}},
		{"apply", []string{"apply"}}, // nothing to do: the lists are still there
		{"describe", []string{"describe", "dev"}},
		{"status", []string{"status"}},
		{"resolve", []string{"resolve", "dev"}},
		{"zed", []string{"zed"}},
		{"zed --write", []string{"zed", "--write", "--settings", filepath.Join(t.TempDir(), "settings.json")}},
	} {
		r := actctl(t, dir, home, append([]string{"-o", "json"}, tc.args...)...)
		if r.Code > 1 {
			t.Errorf("%s: exit %d\n%s", tc.args, r.Code, r.Stderr)
			continue
		}
		checkJSONOutput(t, tc.doc, r.Stdout)
		checkWarningCount(t, tc.doc, r.Stdout)
	}
	// Nothing changed: the fast path answers, and counts its warnings too.
	r := actctlEnv(t, dir, home, []string{"ACTCTL_DEBUG=1"}, "-o", "json", "apply")
	if !strings.Contains(r.Stderr, "apply: fast path") {
		t.Errorf("apply after apply did not take the fast path:\n%s", r.Stderr)
	}
	checkJSONOutput(t, "apply", r.Stdout)
	checkWarningCount(t, "apply", r.Stdout)
	t.Run("init", func(t *testing.T) {
		empty := t.TempDir()
		r := actctl(t, empty, home, "-o", "json", "init")
		if r.Code != 0 {
			t.Fatalf("init -o json: exit %d\n%s", r.Code, r.Stderr)
		}
		checkJSONOutput(t, "init", r.Stdout)
	})
	t.Run("no hub sources", func(t *testing.T) {
		for _, cmd := range []string{"sync", "update"} {
			r := actctl(t, dir, home, "-o", "json", "hub", cmd)
			var v map[string]any
			if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil || r.Code != 0 {
				t.Fatalf("hub %s -o json: exit %d, %v\n%s%s", cmd, r.Code, err, r.Stdout, r.Stderr)
			}
			if p := findNull(v, "hub "+cmd); p != "" {
				t.Errorf("hub %s -o json: %s is null\n%s", cmd, p, r.Stdout)
			}
		}
	})
}

// checkJSONOutput decodes out as JSON (one value, or one a line for a
// stream), checks it against docs/json.md's row doc and that it holds
// no null.
func checkJSONOutput(t *testing.T, doc, out string) {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Errorf("%s -o json is not JSON: %v\n%s", doc, err, out)
		return
	}
	checkDocumented(t, doc, v)
	if p := findNull(v, doc); p != "" {
		t.Errorf("%s -o json: %s is null\n%s", doc, p, out)
	}
}

// checkWarningCount checks that an apply object's counts.warnings counts
// its warnings list too.
func checkWarningCount(t *testing.T, doc, out string) {
	t.Helper()
	if !strings.HasPrefix(doc, "apply") {
		return
	}
	var res struct {
		Actions  []struct{ Action string }
		Counts   struct{ Warnings int }
		Warnings []string
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	want := len(res.Warnings)
	for _, a := range res.Actions {
		if a.Action == "warning" {
			want++
		}
	}
	if want == 0 || res.Counts.Warnings != want {
		t.Errorf("%s -o json: counts.warnings %d, want %d (the config has a warning)\n%s", doc, res.Counts.Warnings, want, out)
	}
}

// findNull returns the path of the first null in v, or "": the user's
// data (a "value") is not looked into.
func findNull(v any, path string) string {
	switch x := v.(type) {
	case nil:
		return path
	case []any:
		for _, e := range x {
			if p := findNull(e, path+"[]"); p != "" {
				return p
			}
		}
	case map[string]any:
		for k, e := range x {
			if k == "value" {
				continue
			}
			if p := findNull(e, path+"."+k); p != "" {
				return p
			}
		}
	}
	return ""
}

// TestJSONContractWatch: every cycle `apply --watch -o json` prints has
// the keys docs/json.md gives, initial and summary included: a failed
// cycle says so in its summary, a later cycle has initial false (issue
// #22 item 13). The cycles are read from the pipe as they come: each
// read waits for the next line.
func TestJSONContractWatch(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, watchConfigPlain)
	cmd := exec.Command(actctlBin, "apply", "--watch", "-o", "json")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	next := func(what string) map[string]any {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("%s: the watch ended: %v", what, lines.Err())
		}
		var c map[string]any
		if err := json.Unmarshal(lines.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, lines.Text())
		}
		if p := findNull(c, "cycle"); p != "" {
			t.Errorf("%s: %s is null\n%s", what, p, lines.Text())
		}
		if res, ok := c["result"]; ok { // the apply object, its own row
			checkDocumented(t, "apply", res)
			delete(c, "result")
		}
		checkDocumented(t, "apply --watch", c)
		return c
	}
	if c := next("initial"); c["initial"] != true || c["ok"] != true {
		t.Errorf("first cycle: %v", c)
	}
	writeConfig(t, dir, watchConfigPlain+"agents: b: {\n")
	if c := next("broken"); c["initial"] != false || c["ok"] != false || c["summary"] != "apply failed" {
		t.Errorf("failed cycle: %v", c)
	}
	writeConfig(t, dir, strings.Replace(watchConfigPlain, "P-0", "P-1", 1))
	if c := next("fixed"); c["initial"] != false || c["ok"] != true {
		t.Errorf("fixed cycle: %v", c)
	}
}

// watchConfigPlain is one agent with an inline prompt.
const watchConfigPlain = `package actant
prompts: p: content: "P-0"
templates: t: {backend: "claude-code", prompts: ["p"]}
agents: a: template: "t"
`

// TestLogsSourceE2E: a prompt's task log names who prompted: "cli" for
// `actctl prompt`, "hook" for a prompt hook (docs/json.md); the source was
// "" for both (issue #22 item 13).
func TestLogsSourceE2E(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home)
	for range 2 {
		p.waitLine(`up: (api|triage): process:start pid (\d+)`)
	}
	if r := actctl(t, root, home, "prompt", "triage", "-p", "hello"); r.Code != 0 {
		t.Fatalf("prompt triage: %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r := actctl(t, root, home, "logs", "triage", "-o", "json")
	if r.Code != 0 {
		t.Fatalf("logs -o json: %d\n%s", r.Code, r.Stderr)
	}
	var cli bool
	for line := range strings.Lines(r.Stdout) {
		var s struct{ Kind, Source, Prompt string }
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &s); err != nil || json.Unmarshal([]byte(line), &v) != nil {
			t.Fatalf("logs -o json line %q: %v", line, err)
		}
		checkTable(t, "`actctl logs -o json`", v, "error")
		want := map[string]string{"hello": "cli", "api started as": "hook"}
		for prefix, source := range want {
			if strings.HasPrefix(s.Prompt, prefix) && s.Source != source {
				t.Errorf("task %q: source %q, want %q", s.Prompt, s.Source, source)
			}
		}
		cli = cli || s.Prompt == "hello"
	}
	if !cli {
		t.Errorf("logs -o json has no task for the prompt:\n%s", r.Stdout)
	}
}

// TestJSONContractProcesses: open, attach and detach -o json against
// docs/json.md (issue #22 item 13).
func TestJSONContractProcesses(t *testing.T) {
	dir, home := agentWorkspace(t)
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %s", r.Stderr)
	}
	pid := strconv.Itoa(os.Getpid())
	for _, tc := range []struct {
		doc  string
		args []string
	}{
		{"open", []string{"open", "helper"}},
		{"attach", []string{"attach", "helper", "--pid", pid}},
		{"detach", []string{"detach", "helper"}},
	} {
		r := actctl(t, dir, home, append([]string{"-o", "json"}, tc.args...)...)
		if r.Code != 0 {
			t.Errorf("%s: exit %d\n%s", tc.args, r.Code, r.Stderr)
			continue
		}
		checkJSONOutput(t, tc.doc, r.Stdout)
	}
}

// TestJSONContractRunSummary: the summary `run -o json` ends with has the
// fields of docs/json.md's table (issue #22 item 13).
func TestJSONContractRunSummary(t *testing.T) {
	root, home := runWorkspace(t)
	r := actctl(t, root, home, "run", "helper", "-p", "hello", "-o", "json")
	if r.Code != 0 {
		t.Fatalf("run -o json: exit %d\n%s", r.Code, r.Stderr)
	}
	var last map[string]any
	for line := range strings.Lines(r.Stdout) {
		var v map[string]any // a new map a line: Unmarshal would merge into the last
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("run -o json line %q: %v", line, err)
		}
		last = v
	}
	if last["type"] != "summary" {
		t.Fatalf("run -o json does not end with its summary:\n%s", r.Stdout)
	}
	checkTable(t, "The `run` / `chat` summary", last, "error")
}
