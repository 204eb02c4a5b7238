//go:build unix

package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestChatOnDemandSharesConversation: under up, `chat` on a repo agent a
// dashboard conversation holds is a lease on the same process (no second
// one), and `status` shows that process "in conversation" with its pid.
func TestChatOnDemandSharesConversation(t *testing.T) {
	root, home := repoWorkspace(t)
	p := startUp(t, root, home)
	u := p.waitLine(`up: dashboard (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)[1]
	p.started("api")
	d := loginDashboard(t, u)
	_, _, pid := d.converse("docs", "session")

	r := chatWith(t, root, home, "session\n", "docs")
	m := sessionTurn.FindStringSubmatch(r.Stdout)
	if r.Code != 0 || m == nil || m[2] != "1" || !strings.Contains(r.Stderr, "docs runs under actctl up: a new session "+m[1]+" on its running process") {
		t.Fatalf("chat docs while a conversation holds it: %+v", r)
	}
	if c := d.card("docs"); c["state"] != "in conversation" || int(c["pid"].(float64)) != pid {
		t.Errorf("docs's card after the chat: %v, want pid %d in conversation", c, pid)
	}
	if n := strings.Count(p.stderr(), "docs: process:start"); n != 1 {
		t.Errorf("%d process starts of docs, want the conversation's one:\n%s", n, p.stderr())
	}

	st := upStatus(t, root, home)["docs"]
	if st.Process == nil || st.Process.Status != "in conversation" || st.Process.PID != pid {
		t.Errorf("status -o json of docs: %+v, want pid %d in conversation", st.Process, pid)
	}
	text := actctl(t, root, home, "status", "docs")
	if !strings.Contains(text.Stdout, "in conversation pid "+strconv.Itoa(pid)) {
		t.Errorf("status docs: %+v", text)
	}
}

// TestChatOnDemandStartsAndEnds: under up, `chat` on a repo agent with no
// process leases one up starts for it (its own cwd policy: the repo's
// workspace), and the process ends with the chat; so does a prompt's.
func TestChatOnDemandStartsAndEnds(t *testing.T) {
	root, home := repoWorkspace(t)
	p := startUp(t, root, home)
	p.started("api")

	r := chatWith(t, root, home, "session\n", "docs")
	if r.Code != 0 || !strings.Contains(r.Stderr, "docs runs under actctl up: a new session") {
		t.Fatalf("chat docs: %+v", r)
	}
	pid := p.started("docs")
	p.waitLine(`up: docs: process:stop pid ` + strconv.Itoa(pid))
	if !processGone(pid) {
		t.Fatalf("docs's process %d left running after the chat ended", pid)
	}
	if !strings.Contains(r.Stdout, " cwd "+instanceDir(t, root, home, "docs")+" turn 1") {
		t.Errorf("chat docs: %q, want the session in the repo's workspace", r.Stdout)
	}
	if st := upStatus(t, root, home)["docs"]; st.Process != nil && st.Process.PID != 0 {
		t.Errorf("status of docs after the chat: %+v", st.Process)
	}

	pr := actctl(t, root, home, "prompt", "docs", "-p", "session")
	if pr.Code != 0 || !strings.Contains(pr.Stdout, "turn 1") {
		t.Fatalf("prompt docs: %+v", pr)
	}
	pid = p.started("docs")
	p.waitLine(`up: docs: process:stop pid ` + strconv.Itoa(pid))
	if !processGone(pid) {
		t.Fatalf("docs's process %d left running after the prompt's turn", pid)
	}
}

// TestChatOnDemandHeldElsewhere: while a process up did not start serves a
// repo agent (an editor's `actctl proxy docs`), up refuses to lease it or
// prompt it, naming that process, and starts none; `chat docs` says so
// and goes on as without up (an ephemeral copy of its own).
func TestChatOnDemandHeldElsewhere(t *testing.T) {
	root, home := repoWorkspace(t)
	ed := startProxy(t, root, home, "docs")
	ed.initialize()
	ed.newSession(1, root)
	held := upStatus(t, root, home)["docs"].Process
	if held == nil || held.PID == 0 {
		t.Fatalf("status of docs served by the proxy: %+v", held)
	}
	p := startUp(t, root, home)
	p.started("api")

	holder := "process " + strconv.Itoa(held.PID) + " serves docs already"
	r := chatWith(t, root, home, "session\n", "docs")
	if r.Code != 0 || !strings.Contains(r.Stderr, "actctl up holds docs on demand but cannot lease it: ") ||
		!strings.Contains(r.Stderr, holder) || !strings.Contains(r.Stderr, "using the ephemeral copy") {
		t.Errorf("chat docs while a proxy serves it: %+v, want up's refusal naming %q", r, holder)
	}
	pr := actctl(t, root, home, "prompt", "docs", "-p", "session")
	if pr.Code == 0 || pr.Stdout != "" || !strings.Contains(pr.Stderr, holder) {
		t.Errorf("prompt docs while a proxy serves it: %+v, want up's refusal naming %q", pr, holder)
	}
	if strings.Contains(p.stderr(), "docs: process:start") {
		t.Errorf("up started docs while another process serves it:\n%s", p.stderr())
	}
}

// instanceDir is agent's workspace directory (resolve's).
func instanceDir(t *testing.T, root, home, agent string) string {
	t.Helper()
	var out struct{ Workspace string }
	r := actctl(t, root, home, "resolve", agent, "-o", "json")
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil || out.Workspace == "" {
		t.Fatalf("resolve %s: %+v", agent, r)
	}
	return out.Workspace
}
