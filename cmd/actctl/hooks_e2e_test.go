//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestApplyFiresAgentHooks: apply fires agent:created, agent:modified and
// agent:destroyed once per agent it changed, with the event as JSON in
// ACTCTL_EVENT; a failing hook is a warning and apply still succeeds; a
// dry run and a no-op apply fire nothing.
func TestApplyFiresAgentHooks(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	logFile := filepath.Join(t.TempDir(), "events.log")
	hooks := `
hooks: log: {on: "agent:%s", run: {command: "/bin/sh", args: ["-c", "printf '%%s\\n' \"$ACTCTL_EVENT\" >> \"$LOG\""], env: LOG: "` + logFile + `"}}
`
	cfg := func(prompt string, agents ...string) string {
		s := `package actant
prompts: p: content: "` + prompt + `"
templates: t: {backend: "claude-code", prompts: ["p"], permissions: "standard"}
`
		for _, a := range agents {
			s += "agents: " + a + ": {template: \"t\", workDir: \"" + a + "\"}\n"
		}
		for _, ev := range []string{"created", "modified", "destroyed"} {
			s += strings.Replace(strings.ReplaceAll(hooks, "%%", "%"), "log: {on: \"agent:%s\"", ev+": {on: \"agent:"+ev+"\"", 1)
		}
		return s + `hooks: broken: {on: "agent:created", agents: ["a"], run: {command: "/bin/sh", args: ["-c", "echo nope >&2; exit 7"]}}` + "\n"
	}
	events := func() []string {
		b, _ := os.ReadFile(logFile)
		var out []string
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if line == "" {
				continue
			}
			var ev struct {
				Name, Agent string
				Data        struct{ Files []string }
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("ACTCTL_EVENT %q: %v", line, err)
			}
			out = append(out, ev.Name+" "+ev.Agent+" "+strings.Join(ev.Data.Files, ","))
		}
		os.Remove(logFile)
		sort.Strings(out) // hooks run concurrently
		return out
	}
	home := filepath.Join(t.TempDir(), "home")
	step := func(what, config string, args []string, want ...string) {
		t.Helper()
		writeFiles(t, dir, map[string]string{"actant.cue": config})
		r := actctl(t, dir, home, args...)
		if r.Code != 0 {
			t.Fatalf("%s: exit %d\n%s", what, r.Code, r.Stderr)
		}
		got := events()
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: events\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if broken := strings.Contains(r.Stderr, `actctl: warning: hook broken (agent:created a): /bin/sh: exit status 7: nope`); broken != (what == "first apply") {
			t.Errorf("%s: stderr %q", what, r.Stderr)
		}
	}
	step("dry run", cfg("v1", "a", "b"), []string{"apply", "--dry-run"})
	step("first apply", cfg("v1", "a", "b"), []string{"apply"},
		"agent:created a a/.claude/settings.json,a/.gitignore,a/CLAUDE.md", "agent:created b b/.claude/settings.json,b/.gitignore,b/CLAUDE.md")
	step("no change", cfg("v1", "a", "b"), []string{"apply"})
	step("edit", cfg("v2", "a", "b"), []string{"apply", "a"}, "agent:modified a a/CLAUDE.md")
	step("remove b", cfg("v2", "a"), []string{"apply"}, "agent:destroyed b ")
}

// TestHookValidationE2E: an unknown event or agent in a hook stops apply
// with a positioned error and nothing is written.
func TestHookValidationE2E(t *testing.T) {
	base := `package actant
templates: t: backend: "claude-code"
agents: a: {template: "t", workDir: "a"}
`
	for _, tc := range []struct{ hook, want string }{
		{`hooks: h: {on: "agent:create", run: command: "true"}`, `actant.cue:4:16: hooks.h.on: unknown event "agent:create" (did you mean "agent:created"?)`},
		{`hooks: h: {on: "agent:created", agents: ["b"], run: command: "true"}`, `actant.cue:4:42: hooks.h.agents[0]: unknown agent "b"`},
		{`hooks: h: {on: "agent:created", prompt: {agent: "a", text: "x"}, run: command: "true"}`, `hooks.h: a hook needs exactly one of run (a command) or prompt (a task for an agent)`},
	} {
		dir := t.TempDir()
		if err := os.Mkdir(filepath.Join(dir, "a"), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFiles(t, dir, map[string]string{"actant.cue": base + tc.hook + "\n"})
		r := actctl(t, dir, "", "apply")
		if r.Code != 1 || !strings.Contains(r.Stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant %s", tc.hook, r.Code, r.Stderr, tc.want)
		}
		if files := listFiles(t, dir); len(files) != 1 {
			t.Errorf("%s: files written: %v", tc.hook, files)
		}
	}
}

// TestWatchFiresAgentHooks: apply --watch fires agent:* hooks each cycle
// without waiting for them: a hook that hangs does not hold back the next
// cycle's events, and SIGTERM ends the watch at once, the hanging hook
// killed with it.
func TestWatchFiresAgentHooks(t *testing.T) {
	dir := t.TempDir()
	logFile := filepath.Join(t.TempDir(), "events.log")
	pidFile := filepath.Join(t.TempDir(), "hang.pid")
	cfg := func(prompt string) string {
		return `package actant
prompts: p: content: "` + prompt + `"
templates: t: {backend: "claude-code", prompts: ["p"]}
agents: a: {template: "t", workDir: "a"}
hooks: log: {on: "agent:modified", run: {command: "/bin/sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> \"$LOG\""], env: LOG: "` + logFile + `"}}
hooks: hang: {on: "agent:created", run: {command: "/bin/sh", args: ["-c", "echo $$ > \"$PIDS\"; exec sleep 1000"], env: PIDS: "` + pidFile + `", timeout: "1h"}}
`
	}
	if err := os.Mkdir(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"actant.cue": cfg("v1")})
	w := startWatch(t, dir, filepath.Join(t.TempDir(), "home"))
	eventually(t, "the hanging hook", func() bool {
		b, err := os.ReadFile(pidFile)
		return err == nil && strings.HasSuffix(string(b), "\n")
	}, w)
	writeFiles(t, dir, map[string]string{"actant.cue": cfg("v2")})
	eventually(t, "agent:modified", fileHas(logFile, `"name":"agent:modified","agent":"a"`), w)
	raw, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err := w.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := w.cmd.Wait(); err != nil {
		t.Fatalf("watch exit: %v\n%s", err, w.stderr)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the hanging hook %d outlived the watch: %v", pid, err)
	}
	if !strings.Contains(w.stderr.String(), "hook hang (agent:created a): cancelled") {
		t.Errorf("stderr:\n%s", w.stderr)
	}
}
