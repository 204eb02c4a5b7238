package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/internal/testutil"
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
// a lease) every session is put in the preset's ACP mode (docs/run.md, "Session mode";
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
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := actctl(t, dir, home, "apply")
	// One note for both agents, naming both files.
	want := `actctl: note: Claude does not take permissions.defaultMode "acceptEdits", "auto" or "bypassPermissions" from the committed ` + dir + `/.claude/settings.json, ` + dir + `/sub/.claude/settings.json (`
	if r.Code != 0 || strings.Count(r.Stderr, want) != 1 || strings.Count(r.Stderr, "note:") != 1 || !strings.Contains(r.Stderr, "--permission-mode") {
		t.Errorf("apply: exit %d, want once %q:\n%s", r.Code, want, r.Stderr)
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.Contains(r.Stderr, "note:") {
		t.Errorf("re-apply: exit %d\n%s", r.Code, r.Stderr)
	}
}

// startLease starts `actctl proxy AGENT --lease` with env added.
func startLease(t *testing.T, root, home, agent string, env ...string) *acpClient {
	t.Helper()
	return startLeaseCmd(t, exec.Command(actctlBin, "proxy", agent, "--lease"), root, home, env...)
}

// startLeaseCmd is startLease with the command that runs the proxy given
// (a shell that starts it, as a client's helper process does).
func startLeaseCmd(t *testing.T, cmd *exec.Cmd, root, home string, env ...string) *acpClient {
	t.Helper()
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), "ACTANT_HOME="+home), env...)
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	c := &acpClient{t: t, cmd: cmd, in: in, out: bufio.NewReader(stdout), stderr: &testutil.Buffer{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// EOF first: a proxy the shell started ends with it (killing the
	// shell alone would leave it holding stderr, and Wait with it).
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	c.initialize()
	return c
}

// exchange sends request id (params as raw JSON) and reads until its
// answer, which it returns with the raw lines read before it; the agent's
// requests among them are answered with answer's result.
func exchange(c *acpClient, id int, method, params string, answer func(method string, line []byte) string) (map[string]json.RawMessage, []string) {
	c.t.Helper()
	req := `{"jsonrpc":"2.0","id":` + jsonInt(id) + `,"method":"` + method + `","params":` + params + "}\n"
	if _, err := c.in.Write([]byte(req)); err != nil {
		c.t.Fatalf("write %s: %v (stderr: %s)", method, err, c.stderr)
	}
	type read struct {
		resp  map[string]json.RawMessage
		lines []string
	}
	done := make(chan read, 1)
	go func() {
		var r read
		defer func() { done <- r }()
		for {
			line, err := c.out.ReadBytes('\n')
			if err != nil {
				return
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(line, &m) != nil {
				continue
			}
			if m["method"] == nil && string(m["id"]) == jsonInt(id) {
				r.resp = m
				return
			}
			r.lines = append(r.lines, string(line))
			if m["method"] != nil && m["id"] != nil && answer != nil {
				var meth string
				_ = json.Unmarshal(m["method"], &meth)
				res := `{"jsonrpc":"2.0","id":` + string(m["id"]) + `,"result":` + answer(meth, line) + "}\n"
				if _, err := c.in.Write([]byte(res)); err != nil {
					return
				}
			}
		}
	}()
	select {
	case r := <-done:
		if r.resp == nil {
			c.t.Fatalf("%s: the proxy closed stdout; stderr:\n%s", method, c.stderr)
		}
		return r.resp, r.lines
	case <-time.After(30 * time.Second):
		c.t.Fatalf("%s: no answer; stderr:\n%s", method, c.stderr)
	}
	return nil, nil
}

// chunks is the text of the agent_message_chunk updates among lines.
func chunks(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		var n struct {
			Params acp.SessionNotification `json:"params"`
		}
		if json.Unmarshal([]byte(l), &n) == nil && n.Params.Update.AgentMessageChunk != nil && n.Params.Update.AgentMessageChunk.Content.Text != nil {
			b.WriteString(n.Params.Update.AgentMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// TestLeaseRelaysFaithfully: a lease passes what the agent and the editor
// say as they say it: an agent's error keeps its code and data (an
// auth-required -32000 starts the editor's login), a permission request
// keeps its tool call's rawInput, locations, content and _meta, and _meta
// and content annotations pass both ways (session/new's too: acpx's
// --append-system-prompt). A relative cwd is refused and opens nothing.
func TestLeaseRelaysFaithfully(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "api")
	p.started("api")
	e := startLease(t, root, home, "api")
	cwd := t.TempDir()
	resp, _ := exchange(e, 1, "session/new", `{"cwd":"`+cwd+`","mcpServers":[],"_meta":{"systemPrompt":{"append":"be brief"}}}`, nil)
	var s acp.NewSessionResponse
	if err := json.Unmarshal(resp["result"], &s); err != nil || s.SessionId == "" {
		t.Fatalf("session/new: %s", resp)
	}
	sid := string(s.SessionId)
	prompt := func(id int, text, extra string) (map[string]json.RawMessage, []string) {
		return exchange(e, id, "session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"`+text+`"`+extra+`}]}`, func(string, []byte) string {
			return `{"outcome":{"outcome":"selected","optionId":"yes"}}`
		})
	}
	if _, lines := prompt(2, "meta", ""); chunks(lines) != `meta {"systemPrompt":{"append":"be brief"}}`+"\n" {
		t.Errorf("session/new's _meta at the agent: %q", chunks(lines))
	}
	resp, lines := exchange(e, 3, "session/prompt", `{"sessionId":"`+sid+`","_meta":{"traceId":"t-1"},"prompt":[{"type":"text","text":"echo-meta","annotations":{"audience":["assistant"]},"_meta":{"b":1}}]}`, nil)
	want := `echo-meta {"block":{"_meta":{"b":1},"annotations":{"audience":["assistant"]}},"prompt":{"traceId":"t-1"}}`
	if resp["error"] != nil || chunks(lines) != want+"\n" {
		t.Errorf("prompt's _meta and annotations at the agent: %q, want %q (%s)", chunks(lines), want, resp)
	}
	if len(lines) != 1 || !strings.Contains(lines[0], `"annotations":{"priority":0.5}`) || !strings.Contains(lines[0], `"_meta":{"test/chunk":true}`) {
		t.Errorf("the agent's chunk at the editor: %q", lines)
	}
	resp, _ = prompt(4, "autherr", "")
	var re struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	}
	if json.Unmarshal(resp["error"], &re) != nil || re.Code != -32000 || re.Message != "Authentication required" || re.Data["authMethods"] == nil {
		t.Errorf("an auth-required error at the editor: %s", resp)
	}
	_, lines = prompt(5, "perm-rich", "")
	var asked string
	for _, l := range lines {
		if strings.Contains(l, `"session/request_permission"`) {
			asked = l
		}
	}
	for _, w := range []string{`"rawInput":{"path":"/tmp/notes.txt","replace":"old","with":"new"}`, `"locations":[{"line":7,"path":"/tmp/notes.txt"}]`,
		`"content":[{"newText":"new","oldText":"old","path":"/tmp/notes.txt","type":"diff"}]`, `"_meta":{"test/call":"c1"}`, `"_meta":{"test/request":"r1"}`} {
		if !strings.Contains(asked, w) {
			t.Errorf("the permission request at the editor lacks %s:\n%s", w, asked)
		}
	}
	if !strings.Contains(chunks(lines), "permission: yes") {
		t.Errorf("the editor's answer at the agent: %q", chunks(lines))
	}
	// A relative cwd is refused, and the agent opens no session.
	_, lines = prompt(6, "sessions", "")
	before := chunks(lines)
	for i, bad := range []string{`"rel/dir"`, `"./x"`, `""`, `7`} {
		resp, _ = exchange(e, 10+i, "session/new", `{"cwd":`+bad+`,"mcpServers":[]}`, nil)
		if !strings.Contains(string(resp["error"]), "-32602") || !strings.Contains(string(resp["error"]), "cwd") {
			t.Errorf("session/new with cwd %s: %s", bad, resp)
		}
	}
	if _, lines = prompt(20, "sessions", ""); chunks(lines) != before {
		t.Errorf("sessions at the agent after the refused ones: %q, before %q", chunks(lines), before)
	}
	e.close()
}

// TestLeaseIdleSessionsByOwner: the sessions a client left idle are
// listed and resumed only by a client of its identity (the proxy's parent
// process, or ACTCTL_LEASE_CLIENT): another one sees none of them and
// cannot resume or prompt them.
func TestLeaseIdleSessionsByOwner(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home, "api")
	p.started("api")
	list := func(c *acpClient, id int) string {
		resp, _ := exchange(c, id, "session/list", `{}`, nil)
		return string(resp["result"])
	}
	a := startLease(t, root, home, "api")
	resp, _ := exchange(a, 1, "session/new", `{"cwd":"`+t.TempDir()+`","mcpServers":[]}`, nil)
	var s acp.NewSessionResponse
	if err := json.Unmarshal(resp["result"], &s); err != nil || s.SessionId == "" {
		t.Fatalf("session/new: %s", resp)
	}
	sid := string(s.SessionId)
	other := startLease(t, root, home, "api", "ACTCTL_LEASE_CLIENT=other-editor")
	if l := list(other, 1); strings.Contains(l, sid) {
		t.Errorf("another client lists a live session: %s", l)
	}
	a.close()
	for i, m := range []string{"session/resume", "session/load"} {
		resp, _ := exchange(other, 2+i, m, `{"sessionId":"`+sid+`","cwd":"/","mcpServers":[]}`, nil)
		if !strings.Contains(string(resp["error"]), "unknown session") {
			t.Errorf("%s of another client's idle session: %s", m, resp)
		}
	}
	resp, _ = exchange(other, 4, "session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"hello"}]}`, nil)
	if !strings.Contains(string(resp["error"]), "unknown session") {
		t.Errorf("prompt to another client's idle session: %s", resp)
	}
	if l := list(other, 5); strings.Contains(l, sid) {
		t.Errorf("another client lists an idle session: %s", l)
	}
	back := startLease(t, root, home, "api")
	if l := list(back, 1); !strings.Contains(l, sid) {
		t.Errorf("the same client does not list its idle session: %s", l)
	}
	if resp, _ := exchange(back, 2, "session/resume", `{"sessionId":"`+sid+`","cwd":"/"}`, nil); resp["error"] != nil {
		t.Fatalf("resume by the same client: %s", resp)
	}
	if resp, lines := exchange(back, 3, "session/prompt", `{"sessionId":"`+sid+`","prompt":[{"type":"text","text":"session"}]}`, nil); resp["error"] != nil || !strings.Contains(chunks(lines), "turn 1") {
		t.Errorf("prompt after resume: %s %q", resp, chunks(lines))
	}
}
