package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/acptestagent"
)

// modesWorkspace declares one agent per preset (and one without
// permissions, one with an explicit defaultMode, a service for up and the
// lease) on the scripted agent; with preset set, the agent offers Claude's
// session modes (acptestagent.ModesVar), else only "ask" and "code".
func modesWorkspace(t *testing.T, preset bool) (root, home string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	env := ""
	if preset {
		env = acptestagent.ModesVar + `: "preset"`
	}
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, env)+`
templates: {
	ro: {backend: "scripted", permissions: "readonly"}
	rs: {backend: "scripted", permissions: "restricted"}
	st: {backend: "scripted", permissions: "standard"}
	pm: {backend: "scripted", permissions: "permissive"}
	ex: {backend: "scripted", permissions: {defaultMode: "acceptEdits", allow: ["Read"]}}
	no: {backend: "scripted"}
	svc: {backend: "scripted", archetype: "service", permissions: "permissive"}
}
agents: {
	reader: template: "ro"
	careful: template: "rs"
	helper: template: "st"
	boss: template: "pm"
	editor: template: "ex"
	plain: template: "no"
	api: template: "svc"
}
`)
	return root, home
}

// TestSessionModeFollowsPreset: where actctl is the client (run, chat, up,
// a lease) every session is put in the preset's ACP mode (seed 001's
// mapping) when the agent offers it, as claude-agent-acp does not take it
// from the project's settings file; a flag that narrows the preset narrows
// the mode; without permissions the agent's own mode stays.
func TestSessionModeFollowsPreset(t *testing.T) {
	root, home := modesWorkspace(t, true)
	for _, tc := range []struct {
		args []string
		mode string
	}{
		{[]string{"reader"}, "plan"},
		{[]string{"careful"}, "default"},
		{[]string{"helper"}, "acceptEdits"},
		{[]string{"boss"}, "bypassPermissions"},
		{[]string{"editor"}, "acceptEdits"},
		{[]string{"plain"}, "default"},
		{[]string{"boss", "--deny-all"}, "plan"},
		{[]string{"boss", "--approve-reads"}, "default"},
		{[]string{"helper", "--approve-all"}, "acceptEdits"},
	} {
		r := actctl(t, root, home, append(append([]string{"run"}, tc.args...), "-p", "mode")...)
		if r.Code != 0 || r.Stdout != "mode "+tc.mode+"\n" || strings.Contains(r.Stderr, "session mode") {
			t.Errorf("run %s: exit %d, stdout %q (want mode %s)\n%s", strings.Join(tc.args, " "), r.Code, r.Stdout, tc.mode, r.Stderr)
		}
	}
	chat := exec.Command(actctlBin, "chat", "reader")
	chat.Dir, chat.Env = root, append(os.Environ(), "ACTANT_HOME="+home)
	chat.Stdin = strings.NewReader("mode\nmode\n")
	if out, err := chat.Output(); err != nil || string(out) != "mode plan\nmode plan\n" {
		t.Errorf("chat reader: %v\n%s", err, out)
	}

	p := startUp(t, root, home, "api")
	p.started("api")
	if r := actctl(t, root, home, "prompt", "api", "-p", "mode"); r.Code != 0 || r.Stdout != "mode bypassPermissions\n" {
		t.Errorf("prompt api: exit %d, %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	e := startProxy(t, root, home, "api", "--lease")
	e.initialize()
	m := e.call(1, acp.AgentMethodSessionNew, acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	var s acp.NewSessionResponse
	if err := json.Unmarshal(m["result"], &s); err != nil || s.Modes == nil || s.Modes.CurrentModeId != "bypassPermissions" {
		t.Fatalf("lease session/new: %s", m)
	}
	m = e.call(2, acp.AgentMethodSessionPrompt, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("mode")}})
	if !strings.Contains(string(m["result"]), "end_turn") {
		t.Fatalf("lease prompt: %s", m)
	}
	e.close()
}

// TestSessionModeNotOffered: an agent that does not offer the preset's
// mode is run in its own mode, with one warning that says so (not one per
// session).
func TestSessionModeNotOffered(t *testing.T) {
	root, home := modesWorkspace(t, false)
	r := actctl(t, root, home, "run", "helper", "-p", "mode")
	want := `actctl: run: warning: agent helper: the agent offers no session mode "acceptEdits" (it offers ask, code): its sessions run in its mode "ask"`
	if r.Code != 0 || r.Stdout != "mode ask\n" || strings.Count(r.Stderr, "session mode") != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("run helper: exit %d, %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, root, home, "run", "plain", "-p", "mode"); r.Code != 0 || r.Stdout != "mode ask\n" || strings.Contains(r.Stderr, "session mode") {
		t.Errorf("run plain (no permissions): exit %d, %q\n%s", r.Code, r.Stdout, r.Stderr)
	}
	p := startUp(t, root, home, "api")
	p.started("api")
	for range 2 {
		if r := actctl(t, root, home, "prompt", "api", "-p", "mode"); r.Code != 0 || r.Stdout != "mode ask\n" {
			t.Errorf("prompt api: exit %d, %q\n%s", r.Code, r.Stdout, r.Stderr)
		}
	}
	if n := strings.Count(p.stop(), `offers no session mode "bypassPermissions"`); n != 1 {
		t.Errorf("up warned %d times, want once:\n%s", n, p.stderr())
	}
}

// stop ends up with SIGTERM and returns all it wrote on stderr.
func (p *upProc) stop() string {
	p.t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		p.t.Fatal(err)
	}
	for range p.lines {
	}
	if err := p.cmd.Wait(); err != nil {
		p.t.Errorf("up after SIGTERM: %v", err)
	}
	return p.stderr()
}

// TestClaudeModeNote: an apply that writes the permissions of a Claude
// agent says once that a person starting Claude does not get the mode
// from the project file, and what to do instead.
func TestClaudeModeNote(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant
templates: cl: {backend: "claude-code", permissions: "permissive"}
agents: {a: template: "cl", b: {template: "cl", workDir: "sub"}}
`)
	r := actctl(t, dir, home, "apply")
	for _, d := range []string{dir, filepath.Join(dir, "sub")} {
		want := `actctl: note: Claude does not take permissions.defaultMode "acceptEdits", "auto" or "bypassPermissions" from the committed ` + d + `/.claude/settings.json`
		if r.Code != 0 || strings.Count(r.Stderr, want) != 1 || !strings.Contains(r.Stderr, "--permission-mode") {
			t.Errorf("apply: exit %d, want once %q:\n%s", r.Code, want, r.Stderr)
		}
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.Contains(r.Stderr, "note:") {
		t.Errorf("re-apply: exit %d\n%s", r.Code, r.Stderr)
	}
}
