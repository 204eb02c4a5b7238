package dashboard

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/tasklog"
)

// convoRoutes are the routes of conversations and task cancels.
var convoRoutes = []struct{ method, path string }{
	{"POST", "/agents/bot/tasks/1/cancel"}, {"POST", "/agents/bot/sessions"}, {"GET", "/agents/bot/sessions/s1"},
	{"GET", "/agents/bot/sessions/s1/live?task=1"}, {"POST", "/agents/bot/sessions/s1/prompt"},
	{"POST", "/agents/bot/sessions/s1/cancel"}, {"POST", "/agents/bot/sessions/s1/answer"}, {"POST", "/agents/bot/sessions/s1/close"},
}

// TestConvoRoutesGuarded: every conversation and cancel route refuses a
// foreign Host (421) and a cross-origin POST (403), reaching nothing
// (the token is TestUnauthorized's, with the routes in its list).
func TestConvoRoutesGuarded(t *testing.T) {
	f := newFake(testAgents()...)
	s := newTestServer(t, f)
	for _, rt := range convoRoutes {
		r := request(rt.method, rt.path, "text=hi")
		r.Host = "evil.example:4321"
		if w := serve(s, r); w.Code != http.StatusMisdirectedRequest {
			t.Errorf("%s %s, another Host: %d, want 421", rt.method, rt.path, w.Code)
		}
		if rt.method != "POST" {
			continue
		}
		for _, origin := range []string{"", "http://evil.example"} {
			r := request(rt.method, rt.path, "text=hi&call=c&option=o")
			r.Header.Set("Origin", origin)
			if origin == "" {
				r.Header.Del("Origin")
			}
			if w := serve(s, r); w.Code != http.StatusForbidden {
				t.Errorf("POST %s Origin %q: %d, want 403", rt.path, origin, w.Code)
			}
		}
	}
	if p, c := f.calls(); len(p)+len(c) != 0 {
		t.Fatalf("refused requests reached up: %v %v", p, c)
	}
}

// TestConvoActions: each action reaches up with what the page sent; a
// form is sent back to its page, a script gets the outcome.
func TestConvoActions(t *testing.T) {
	f := newFake(testAgents()...)
	s := newTestServer(t, f)
	for _, c := range []struct{ path, body, location string }{
		{"/agents/bot/tasks/3/cancel", "", "/agents/bot"},
		{"/agents/bot/tasks/3/cancel", "back=task", "/agents/bot/tasks/3"},
		{"/agents/bot/sessions", "", "/agents/bot/sessions/s1"},
		{"/agents/bot/sessions/s1/prompt", "text=again", "/agents/bot/sessions/s1"},
		{"/agents/bot/sessions/s1/cancel", "", "/agents/bot/sessions/s1"},
		{"/agents/bot/sessions/s1/answer", "call=c1&option=yes", "/agents/bot/sessions/s1"},
		{"/agents/bot/sessions/s1/close", "", "/agents/bot"},
	} {
		w := serve(s, request("POST", c.path, c.body))
		if w.Code != http.StatusSeeOther || w.Header().Get("Location") != c.location {
			t.Errorf("POST %s %s: %d %q, want 303 to %s", c.path, c.body, w.Code, w.Header().Get("Location"), c.location)
		}
	}
	want := "[cancel bot 3 cancel bot 3 new bot say bot s1 again cancel-turn bot s1 answer bot s1 c1 yes close bot s1]"
	if _, c := f.calls(); strings.Join(c, " ") != strings.Trim(want, "[]") {
		t.Errorf("calls %q, want %s", c, want)
	}
	r := request("POST", "/agents/bot/sessions/s1/prompt", "text=hi")
	r.Header.Set("X-Requested-With", "dashboard")
	if w := serve(s, r); w.Code != 200 || strings.TrimSpace(w.Body.String()) != `{"task":2}` {
		t.Errorf("script prompt: %d %q", w.Code, w.Body.String())
	}
	r = request("POST", "/agents/bot/tasks/404/cancel", "")
	r.Header.Set("X-Requested-With", "dashboard")
	if w := serve(s, r); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "no task 404") {
		t.Errorf("cancel of no task: %d %q", w.Code, w.Body.String())
	}
	f.logs["bot/7"] = nil // running: no summary yet
	if page := serve(s, request("GET", "/agents/bot/tasks/7", "")).Body.String(); !strings.Contains(page, `<form method="post" action="/agents/bot/tasks/7/cancel" class="inline"><input type="hidden" name="back" value="task">`) {
		t.Errorf("a running task's page has no Cancel:\n%s", page)
	}
	for path, code := range map[string]int{"/agents/nobody/sessions": 404, "/agents/bot/sessions/s1/prompt": 400, "/agents/bot/tasks/x/cancel": 400} {
		if w := serve(s, request("POST", path, "")); w.Code != code {
			t.Errorf("POST %s: %d, want %d", path, w.Code, code)
		}
	}
}

// TestConversationPage: the page shows the turns (the agent's text
// escaped), a request put to the person as one form per option, Cancel
// while a turn runs, and works without script (plain forms).
func TestConversationPage(t *testing.T) {
	f := newFake(testAgents()...)
	f.logs["bot/1"] = []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"<i>hello</i>"}}}}
{"jsonrpc":"2.0","method":"_actctl/ask","params":{"toolCallId":"call-x","title":"Run <x>","kind":"execute","options":[{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}],"deadline":"2026-01-01T00:00:00Z"}}
`)
	s := newTestServer(t, f)
	w := serve(s, request("GET", "/agents/bot/sessions/s1", ""))
	page := w.Body.String()
	for _, want := range []string{
		`&lt;b&gt;hi&lt;/b&gt;`, `<div class="msg">&lt;i&gt;hello&lt;/i&gt;</div>`, `Run &lt;x&gt;`,
		`<form method="post" action="/agents/bot/sessions/s1/answer" class="inline answer"><input type="hidden" name="call" value="call-x"><input type="hidden" name="option" value="yes"><button data-kind="allow_once">Allow</button></form>`,
		`<form method="post" action="/agents/bot/sessions/s1/cancel" id="cancel-form">`,
		`<form method="post" action="/agents/bot/sessions/s1/prompt" id="say-form">`,
		`data-running="1"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s:\n%s", want, page)
		}
	}
	f.logs["bot/1"] = append(f.logs["bot/1"], []byte(`{"jsonrpc":"2.0","method":"_actctl/permission","params":{"toolCallId":"call-x","title":"Run <x>","decision":"allowed","optionId":"yes","by":"user"}}
`)...)
	page = serve(s, request("GET", "/agents/bot/sessions/s1", "")).Body.String()
	if strings.Contains(page, "/answer") || !strings.Contains(page, "by the user") {
		t.Errorf("the answered request is still asked, or its decision is missing:\n%s", page)
	}
	if w := serve(s, request("GET", "/agents/bot/sessions/nope", "")); w.Code != 404 {
		t.Errorf("unknown conversation: %d", w.Code)
	}
	agent := serve(s, request("GET", "/agents/bot", "")).Body.String()
	if !strings.Contains(agent, `<a href="/agents/bot/sessions/s1">&lt;b&gt;hi&lt;/b&gt;</a>`) || !strings.Contains(agent, `action="/agents/bot/sessions"`) {
		t.Errorf("the agent's page lacks its conversations:\n%s", agent)
	}
}

// TestTurnLiveEnds: a turn's live log sends its items, then, the task
// having ended, an "end" event with how it ended, and the stream ends
// (the page needs no guess of when the log is whole).
func TestTurnLiveEnds(t *testing.T) {
	agents := testAgents()
	agents[0].LastTask = &tasklog.Summary{Task: 1, StopReason: "cancelled", Error: "cancelled by the user: the turn was cancelled"}
	f := newFake(agents...)
	p := filepath.Join(t.TempDir(), "1.jsonl")
	if err := os.WriteFile(p, []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"waiting"}}}}
{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	f.paths["bot/1"] = p
	s := newTestServer(t, f)
	body := serve(s, request("GET", "/agents/bot/sessions/s1/live?task=1", "")).Body.String()
	want := "event: item\ndata: {\"kind\":\"text\",\"text\":\"waiting\"}\n\nevent: item\ndata: {\"kind\":\"stop\",\"text\":\"cancelled\"}\n\n" +
		"event: end\ndata: {\"error\":\"cancelled by the user: the turn was cancelled\",\"stopReason\":\"cancelled\"}\n\n"
	if !strings.HasSuffix(body, want) {
		t.Errorf("stream:\n%s\nwant it to end with:\n%s", body, want)
	}
	if w := serve(s, request("GET", "/agents/bot/sessions/s1/live?task=9", "")); w.Code != 404 {
		t.Errorf("a task of no turn: %d", w.Code)
	}
}
