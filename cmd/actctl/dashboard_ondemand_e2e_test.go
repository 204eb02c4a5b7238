//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// repoWorkspace is a workspace with a service up runs, and a repo agent
// and a tool agent it holds on demand, all on the test agent.
func repoWorkspace(t testing.TB) (root, home string) {
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: {
	svc: {backend: "scripted", archetype: "service"}
	rp: {backend: "scripted", archetype: "repo"}
	tl: {backend: "scripted"}
}
agents: {
	api: template: "svc"
	docs: template: "rp"
	helper: template: "tl"
}
`)
	return root, home
}

// dashClient is a logged-in client of a dashboard: its base URL.
type dashClient struct {
	t    *testing.T
	c    *http.Client
	base string
}

func loginDashboard(t *testing.T, u string) *dashClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(u)
	if err != nil || res.StatusCode != http.StatusSeeOther {
		t.Fatalf("log in: %v %v", res, err)
	}
	res.Body.Close()
	pu, _ := url.Parse(u)
	return &dashClient{t: t, c: c, base: "http://" + pu.Host}
}

// post sends a form as the dashboard's script does and returns the
// response (its body unread).
func (d *dashClient) post(path string, form url.Values) *http.Response {
	d.t.Helper()
	req, _ := http.NewRequest("POST", d.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Origin", d.base)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	res, err := d.c.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	return res
}

// card is agent's card as /api/agents gives it.
func (d *dashClient) card(agent string) map[string]any {
	d.t.Helper()
	res, err := d.c.Get(d.base + "/api/agents")
	if err != nil {
		d.t.Fatal(err)
	}
	defer res.Body.Close()
	var cards []map[string]any
	if err := json.NewDecoder(res.Body).Decode(&cards); err != nil {
		d.t.Fatal(err)
	}
	for _, c := range cards {
		if c["name"] == agent {
			return c
		}
	}
	d.t.Fatalf("no card of %s in %v", agent, cards)
	return nil
}

// converse opens a conversation with agent, says text in it and returns
// the conversation's path, the turn's reply (its items' text, read from
// the live stream until the turn ended) and the pid of the agent's
// process.
func (d *dashClient) converse(agent, text string) (path, reply string, pid int) {
	d.t.Helper()
	res := d.post("/agents/"+agent+"/sessions", nil)
	res.Body.Close()
	path = res.Header.Get("Location")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(path, "/agents/"+agent+"/sessions/") {
		d.t.Fatalf("new conversation: %d %q", res.StatusCode, path)
	}
	c := d.card(agent)
	if c["state"] != "in conversation" || c["pid"] == nil {
		d.t.Fatalf("card with a conversation open: %v", c)
	}
	pid = int(c["pid"].(float64))
	req, _ := http.NewRequest("POST", d.base+path+"/prompt", strings.NewReader(url.Values{"text": {text}}.Encode()))
	req.Header.Set("Origin", d.base)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Requested-With", "test")
	res, err := d.c.Do(req)
	if err != nil {
		d.t.Fatal(err)
	}
	var turn struct{ Task uint64 }
	if err := json.NewDecoder(res.Body).Decode(&turn); err != nil || turn.Task == 0 {
		d.t.Fatalf("say: %d %v", res.StatusCode, err)
	}
	res.Body.Close()
	live, err := d.c.Get(d.base + path + "/live?task=" + jsonNumber(turn.Task))
	if err != nil {
		d.t.Fatal(err)
	}
	defer live.Body.Close()
	return path, liveText(d.t, live.Body), pid
}

func jsonNumber(n uint64) string { b, _ := json.Marshal(n); return string(b) }

// liveText reads a turn's live stream until its end event: the text of
// its items.
func liveText(t *testing.T, r io.Reader) string {
	t.Helper()
	var out strings.Builder
	sc := bufio.NewScanner(r)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "item":
			var it struct{ Text string }
			_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &it)
			out.WriteString(it.Text)
		case strings.HasPrefix(line, "data: ") && event == "end":
			return out.String()
		}
	}
	t.Fatalf("the turn's stream ended with no end: %v\n%s", sc.Err(), out.String())
	return ""
}

// processGone reports whether pid has ended (no such process).
func processGone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// TestDashboardRepoAgent: up holds a repo agent on demand (issue #35 item
// 7): its card says "on demand" with no process; a conversation from the
// dashboard starts its process with the repo archetype's session cwd
// (its workspace; a tool agent's: the workspace's root); closing the
// conversation ends the process; those left open end with up's SIGTERM.
// Nothing is left running.
func TestDashboardRepoAgent(t *testing.T) {
	root, home := repoWorkspace(t)
	p := startUp(t, root, home)
	u := p.waitLine(`up: dashboard (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)[1]
	p.waitLine(`up: api: process:start pid`)
	d := loginDashboard(t, u)
	if c := d.card("docs"); c["state"] != "on demand" || c["pid"] != nil || c["onDemand"] != true {
		t.Fatalf("docs before any conversation: %v", c)
	}
	path, reply, pid := d.converse("docs", "session")
	ws := filepath.Join(home, "instances", "docs")
	if r := actctl(t, root, home, "resolve", "docs", "-o", "json"); r.Code == 0 {
		var out struct{ Dir string }
		if json.Unmarshal([]byte(r.Stdout), &out) == nil && out.Dir != "" {
			ws = out.Dir
		}
	}
	if !strings.Contains(reply, " cwd "+ws+" turn 1") {
		t.Errorf("the turn's reply %q: want the session cwd %s (the repo's workspace)", reply, ws)
	}
	res := d.post(path+"/close", nil)
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/agents/docs" {
		t.Fatalf("close: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if !processGone(pid) {
		t.Fatalf("docs's process %d left running after its conversation closed", pid)
	}
	if c := d.card("docs"); c["state"] != "on demand" {
		t.Errorf("docs after the close: %v", c)
	}
	// A tool agent's session works in its client's project: the
	// workspace's root, as `actctl chat helper` there would.
	_, reply, toolPid := d.converse("helper", "session")
	if !strings.Contains(reply, " cwd "+root+" turn 1") {
		t.Errorf("the tool agent's reply %q: want the session cwd %s (the workspace's root)", reply, root)
	}
	_, _, pid = d.converse("docs", "hello")
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up: %v\n%s", err, p.stderr())
	}
	if !processGone(pid) || !processGone(toolPid) {
		t.Fatalf("docs's process %d or helper's %d left running after up's SIGTERM", pid, toolPid)
	}
	if n := strings.Count(p.stderr(), "docs: a conversation starts its process (on demand)"); n != 2 {
		t.Errorf("%d on-demand starts logged:\n%s", n, p.stderr())
	}
}
