//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// pluginsWorkspace declares developer, whose prompts are translated to
// English by agent translator, prefixed with the team's rules and
// redacted of tokens, and whose answers are translated back
// (docs/plugins.md); both run on the scripted test agent
// (internal/acptestagent: echo, translate, leak), which logs every prompt
// it receives to prompts.log. An employee with the same plugins, and a
// tool agent whose plugin's sub-agent crashes (failing the turn, or
// passing the text on: lenient), and a service with the developer's
// outbound chain (helpdesk), come with it.
func pluginsWorkspace(t *testing.T) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, `ACTCTL_TEST_PROMPT_LOG: "`+filepath.Join(root, "prompts.log")+`"`)+`
templates: {
	dev: {backend: "scripted", plugins: ["to-english", "rules", "secrets", "to-user"]}
	translator: {backend: "scripted", plugins: []}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "hello"}, plugins: ["secrets", "crashing"]}
	fragile: {backend: "scripted", plugins: ["crashing-fail"]}
	lenient: {backend: "scripted", plugins: ["crashing"]}
	desk: {backend: "scripted", archetype: "service", plugins: ["rules", "secrets", "to-user"]}
}
agents: {
	developer: template: "dev"
	translator: template: "translator"
	worker: template: "emp"
	fragile: template: "fragile"
	lenient: template: "lenient"
	helpdesk: template: "desk"
}
plugins: {
	"to-english": {kind: "agent", agent: "translator", prompt: "translate en {{text}}"}
	"to-user": {kind: "agent", agent: "translator", prompt: "translate zh {{text}}", on: "outbound"}
	rules: {kind: "prefix", text: "Team rules: small commits."}
	secrets: {kind: "redact", patterns: ["tok-[0-9]+"]}
	crashing: {kind: "agent", agent: "translator", prompt: "crash {{text}}", on: "outbound"}
	"crashing-fail": {kind: "agent", agent: "translator", prompt: "crash {{text}}", onError: "fail"}
}
hooks: "plugin-error": {on: "plugin:error", run: {command: "sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> events.log"]}}
`)
	return root, home
}

// TestRunPlugins: through the built binary, run's prompt passes the
// inbound chain (redact, the translator sub-agent, the prefix) before
// the agent sees it, and the agent's answer the outbound chain (the
// translator back, redact) before it is printed; no token reaches an
// agent, stdout or the JSON output.
func TestRunPlugins(t *testing.T) {
	root, home := pluginsWorkspace(t)
	r := actctl(t, root, home, "run", "developer", "-p", "echo 你好 世界 tok-12345")
	if want := "Team rules: small commits. | echo 你好 世界 [REDACTED]\n"; r.Code != 0 || r.Stdout != want {
		t.Fatalf("exit %d\nstdout %q\nwant   %q\nstderr %s", r.Code, r.Stdout, want, r.Stderr)
	}
	prompts, err := os.ReadFile(filepath.Join(root, "prompts.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The translator's two turns and the developer's, in that order.
	lines := strings.Split(strings.TrimSpace(string(prompts)), "\n")
	var got []string
	for _, l := range lines {
		_, text, _ := strings.Cut(l, "\t")
		got = append(got, text)
	}
	want := []string{"translate en echo 你好 世界 [REDACTED]", "Team rules: small commits.echo hello world [REDACTED]",
		"translate zh Team rules: small commits. | echo hello world [REDACTED]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("prompts the agents received:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	r = actctl(t, root, home, "-o", "json", "run", "developer", "-p", "leak")
	if r.Code != 0 || strings.Contains(r.Stdout, "tok-424242") || !strings.Contains(r.Stdout, "leaked [REDACTED]") {
		t.Errorf("a token the agent wrote: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestRunPluginAgentCrashes: a plugin's sub-agent that crashes passes
// the text on unchanged with one warning (onError "pass"), or fails the
// turn naming the plugin ("fail"); the user's prompt is never lost.
func TestRunPluginAgentCrashes(t *testing.T) {
	root, home := pluginsWorkspace(t)
	r := actctl(t, root, home, "run", "fragile", "-p", "hello")
	if r.Code != 1 || !strings.Contains(r.Stderr, "plugin crashing-fail (inbound) failed: agent translator") ||
		!strings.Contains(r.Stderr, "the turn fails (onError \"fail\"; the prompt was not sent)") {
		t.Errorf("fail: exit %d\nstdout %q\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "prompts.log")); strings.Contains(string(b), "\thello") {
		t.Errorf("the failed turn's prompt was sent:\n%s", b)
	}
}

// TestTaskPlugins: a task's log records each plugin step (sizes, never
// the text) and the prompt redacted; a plugin's sub-agent that crashes
// passes the answer on with one warning and publishes plugin:error.
func TestTaskPlugins(t *testing.T) {
	root, home := pluginsWorkspace(t)
	r := actctl(t, root, home, "task", "worker", "-p", "echo tok-777 hello")
	if r.Code != 0 || r.Stdout != "echo [REDACTED] hello\n" || strings.Count(r.Stderr, "plugin crashing (outbound) failed, the text went on unchanged") != 1 {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", r.Code, r.Stdout, r.Stderr)
	}
	dir := filepath.Join(home, "instances", "worker", "logs")
	var all strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			all.Write(b)
		}
		return nil
	})
	logs := all.String()
	if strings.Contains(logs, "tok-777") || !strings.Contains(logs, `"method":"_actctl/plugin","params":{"plugin":"secrets","direction":"inbound"`) ||
		!strings.Contains(logs, `"plugin":"crashing","direction":"outbound"`) || !strings.Contains(logs, `"outcome":"passed"`) {
		t.Errorf("task logs:\n%s", logs)
	}
	events, err := os.ReadFile(filepath.Join(root, "events.log"))
	if err != nil || !strings.Contains(string(events), `"name":"plugin:error"`) || !strings.Contains(string(events), `"plugin":"crashing"`) {
		t.Errorf("plugin:error: %v\n%s", err, events)
	}
}

// TestUpPlugins: up's turns carry the agent's plugins too (the warm
// process's session gets the same Filter): a prompt's answer is redacted
// before `actctl prompt` and the task log see it, the log records the
// plugin steps and the prompt redacted, and a plugin's failure publishes
// plugin:error.
func TestUpPlugins(t *testing.T) {
	root, home := pluginsWorkspace(t)
	p := startUp(t, root, home, "worker")
	pid := p.started("worker")
	r := actctl(t, root, home, "prompt", "worker", "-p", "leak")
	if r.Code != 0 || !strings.Contains(r.Stdout, "leaked [REDACTED]") || strings.Contains(r.Stdout, "tok-424242") {
		t.Errorf("prompt: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, root, home, "prompt", "worker", "-p", "echo tok-31337"); r.Code != 0 || r.Stdout != "echo [REDACTED]\n" {
		t.Errorf("prompt with a token: exit %d\n%q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up after SIGTERM: %v\n%s", err, p.stderr())
	}
	requireExited(t, "the worker after SIGTERM", pid)
	var logs strings.Builder
	filepath.WalkDir(filepath.Join(home, "instances", "worker", "logs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			logs.Write(b)
		}
		return nil
	})
	if s := logs.String(); strings.Contains(s, "tok-424242") || strings.Contains(s, "tok-31337") || !strings.Contains(s, `"plugin":"secrets","direction":"outbound"`) ||
		!strings.Contains(s, `"plugin":"crashing","direction":"outbound"`) {
		t.Errorf("up's task log:\n%s", s)
	}
	events, err := os.ReadFile(filepath.Join(root, "events.log"))
	if err != nil || !strings.Contains(string(events), `"name":"plugin:error"`) || !strings.Contains(string(events), `"plugin":"crashing"`) {
		t.Errorf("plugin:error: %v\n%s", err, events)
	}
}

// TestChatPlugins: each turn of a chat passes the chains, with the
// budgets of its own turn: two prompts, two translations each way.
func TestChatPlugins(t *testing.T) {
	root, home := pluginsWorkspace(t)
	cmd := exec.Command(actctlBin, "chat", "developer")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
	cmd.Stdin = strings.NewReader("echo 你好\necho 世界 tok-9\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chat: %v\n%s", err, out)
	}
	for _, want := range []string{"Team rules: small commits. | echo 你好", "Team rules: small commits. | echo 世界 [REDACTED]"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("chat's output lacks %q:\n%s", want, out)
		}
	}
}
