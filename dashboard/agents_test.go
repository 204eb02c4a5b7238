package dashboard

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/actctl/actctl/up"
)

func manyAgents() []Agent {
	return append(testAgents(),
		Agent{AgentStatus: up.AgentStatus{Name: "crashy", Archetype: "service", State: "crashed", LastError: "exit 1"}, Backend: "codex"},
		Agent{AgentStatus: up.AgentStatus{Name: "retry", Archetype: "employee", State: "backoff"}, Backend: "claude-code", Template: "triager"},
		Agent{AgentStatus: up.AgentStatus{Name: "alpha", Archetype: "service", State: "running"}, Backend: "codex"},
	)
}

// cardNames are the names of the cards of an agents page, in order.
func cardNames(page string) string {
	var out []string
	for _, m := range regexp.MustCompile(`<li class="card" data-name="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return strings.Join(out, " ")
}

// TestAgentsPage: counts by state on top, crashed and backing-off agents
// first, filters by state, archetype and backend and a search, all
// query parameters a form sends without script. (issue #35 item 9)
func TestAgentsPage(t *testing.T) {
	s := newTestServer(t, newFake(manyAgents()...))
	get := func(path string) string { return serve(s, request("GET", path, "")).Body.String() }
	page := get("/")
	if got := cardNames(page); got != "crashy retry alpha bot svc" {
		t.Errorf("order %q, want state first", got)
	}
	for _, want := range []string{`all <span data-n="">5</span>`, `running <span data-n="running">2</span>`, `crashed <span data-n="crashed">1</span>`,
		`<input type="checkbox" name="agent" value="bot" form="bulk"`, `<button name="op" value="stop">Stop…</button>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the agents page lacks %s", want)
		}
	}
	for path, want := range map[string]string{
		"/?state=running": "alpha bot", "/?archetype=employee": "retry bot", "/?backend=codex": "crashy alpha svc",
		"/?q=RET": "retry", "/?q=triager": "retry", "/?state=running&archetype=service": "alpha", "/?q=nobody": "",
	} {
		page := get(path)
		if got := cardNames(page); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
		if !strings.Contains(page, `data-on="1"`) || !strings.Contains(page, `all <span data-n="">5</span>`) {
			t.Errorf("%s: the filter is not marked on or the counts are not of every agent", path)
		}
	}
	if page := get("/?q=nobody"); !strings.Contains(page, "No agent matches the filter") {
		t.Errorf("an empty result says nothing:\n%s", page)
	}
}

// TestBulk: the selected agents are started or restarted at once; stop
// asks first (a page with the same selection and confirm=yes), then
// stops them; each outcome is listed. (issue #35 item 9)
func TestBulk(t *testing.T) {
	f := newFake(manyAgents()...)
	s := newTestServer(t, f)
	post := func(body string) *httptest.ResponseRecorder { return serve(s, request("POST", "/bulk", body)) }
	w := post("op=stop&agent=bot&agent=alpha")
	if _, c := f.calls(); w.Code != 200 || len(c) != 0 || !strings.Contains(w.Body.String(), "Stop 2 agents?") ||
		!strings.Contains(w.Body.String(), `<input type="hidden" name="agent" value="alpha">`) || !strings.Contains(w.Body.String(), `name="confirm" value="yes"`) {
		t.Fatalf("stop without confirm: %d %v\n%s", w.Code, c, w.Body.String())
	}
	w = post("op=stop&agent=bot&agent=alpha&confirm=yes")
	if _, c := f.calls(); w.Code != 200 || strings.Join(c, ",") != "stop alpha,stop bot" || !strings.Contains(w.Body.String(), "stop bot: done") {
		t.Fatalf("stop confirmed: %d %v\n%s", w.Code, c, w.Body.String())
	}
	w = post("op=restart&agent=svc&agent=svc")
	if _, c := f.calls(); w.Code != 200 || strings.Join(c, ",") != "stop alpha,stop bot,restart svc" {
		t.Fatalf("restart: %d %v", w.Code, c)
	}
	for body, want := range map[string]int{"op=start": 400, "op=explode&agent=bot": 400, "op=start&agent=bot&agent=nobody": 404} {
		if w := post(body); w.Code != want {
			t.Errorf("%s: %d, want %d (%s)", body, w.Code, want, w.Body.String())
		}
	}
	if _, c := f.calls(); len(c) != 3 {
		t.Errorf("refused forms reached the agents: %v", c)
	}
}

// TestAgentsRoutesSecurity: the filtered agents page and the bulk form
// answer 401 without the cookie, 421 to a foreign Host, and the bulk
// form 403 to a cross-origin POST, before any agent is touched.
func TestAgentsRoutesSecurity(t *testing.T) {
	f := newFake(manyAgents()...)
	s := newTestServer(t, f)
	for _, rt := range []struct{ method, path string }{{"GET", "/?state=running&q=a"}, {"POST", "/bulk"}} {
		r := request(rt.method, rt.path, "op=start&agent=bot")
		r.Header.Del("Cookie")
		if w := serve(s, r); w.Code != http.StatusUnauthorized {
			t.Errorf("%s %s without the cookie: %d", rt.method, rt.path, w.Code)
		}
		r = request(rt.method, rt.path, "op=start&agent=bot")
		r.Host = "evil.example:4321"
		if w := serve(s, r); w.Code != http.StatusMisdirectedRequest {
			t.Errorf("%s %s from a foreign Host: %d", rt.method, rt.path, w.Code)
		}
	}
	for _, origin := range []string{"", "http://evil.example"} {
		r := request("POST", "/bulk", "op=start&agent=bot&confirm=yes")
		r.Header.Set("Origin", origin)
		if w := serve(s, r); w.Code != http.StatusForbidden {
			t.Errorf("POST /bulk Origin %q: %d", origin, w.Code)
		}
	}
	if _, c := f.calls(); len(c) != 0 {
		t.Errorf("refused requests reached the agents: %v", c)
	}
}
