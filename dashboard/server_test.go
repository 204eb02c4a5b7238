package dashboard

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

const (
	testToken = "t0ken"
	testAddr  = "127.0.0.1:4321"
)

func testAgents() []Agent {
	return []Agent{
		{AgentStatus: up.AgentStatus{Name: "bot", Archetype: "employee", State: "running", Pid: 42}, Backend: "claude-code"},
		{AgentStatus: up.AgentStatus{Name: "svc", Archetype: "service", State: "stopped"}, Backend: "codex"},
	}
}

func newTestServer(t *testing.T, f *fake) *Server {
	t.Helper()
	s, err := New(f, Options{Token: testToken, Addr: testAddr, Host: "dash.example"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// request makes a request as a logged-in page of the dashboard would.
func request(method, target, body string) *http.Request {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	r.Host = testAddr
	r.AddCookie(&http.Cookie{Name: CookieName + "-4321", Value: testToken})
	if method == http.MethodPost {
		r.Header.Set("Origin", "http://"+testAddr)
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return r
}

func serve(s *Server, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

var routes = []struct{ method, path string }{
	{"GET", "/"}, {"GET", "/api/agents"}, {"GET", "/api/instance"}, {"GET", "/live"}, {"GET", "/events"}, {"GET", "/canvases"}, {"GET", "/agents/bot"},
	{"GET", "/agents/bot/tasks/1"}, {"GET", "/agents/bot/canvas"}, {"GET", "/agents/bot/stderr/live?from=0"}, {"GET", "/static/app.js"},
	{"POST", "/agents/bot/prompt"}, {"POST", "/agents/bot/restart"}, {"POST", "/bulk"}, {"POST", "/agents/bot/tasks/1/rerun"},
	{"POST", "/agents/bot/tasks/1/cancel"}, {"POST", "/agents/bot/sessions"}, {"GET", "/agents/bot/sessions/s1"},
	{"GET", "/agents/bot/sessions/s1/live?task=1"}, {"POST", "/agents/bot/sessions/s1/prompt"}, {"POST", "/agents/bot/sessions/s1/cancel"},
	{"POST", "/agents/bot/sessions/s1/answer"}, {"POST", "/agents/bot/sessions/s1/close"},
}

func TestUnauthorized(t *testing.T) {
	f := newFake(testAgents()...)
	s := newTestServer(t, f)
	for _, rt := range routes {
		for _, cookie := range []string{"", "wrong"} {
			r := httptest.NewRequest(rt.method, rt.path, strings.NewReader("text=hi"))
			r.Host = testAddr
			r.Header.Set("Origin", "http://"+testAddr)
			if cookie != "" {
				r.AddCookie(&http.Cookie{Name: CookieName + "-4321", Value: cookie})
			}
			w := serve(s, r)
			if w.Code != http.StatusUnauthorized || !strings.Contains(w.Body.String(), "unauthorized") {
				t.Errorf("%s %s cookie %q: %d %q, want 401", rt.method, rt.path, cookie, w.Code, w.Body.String())
			}
		}
	}
	if p, c := f.calls(); len(p)+len(c) != 0 {
		t.Errorf("unauthorized requests reached the agents: %v %v", p, c)
	}
}

func TestTokenExchange(t *testing.T) {
	s := newTestServer(t, newFake(testAgents()...))
	r := httptest.NewRequest("GET", "/agents/bot?token="+testToken+"&x=1", nil)
	r.Host = testAddr
	w := serve(s, r)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/agents/bot?x=1" {
		t.Fatalf("exchange: %d, Location %q; want 303 to /agents/bot?x=1", w.Code, w.Header().Get("Location"))
	}
	cs := w.Result().Cookies()
	// Named after the port: dashboards of two workspaces on one host
	// (cookies ignore ports) do not overwrite each other's.
	if len(cs) != 1 || cs[0].Name != "actctl_ui-4321" || cs[0].Value != testToken || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || cs[0].Path != "/" {
		t.Fatalf("cookie: %+v, want HttpOnly SameSite=Strict actctl_ui-4321", cs)
	}
	r = httptest.NewRequest("GET", "/?token=nope", nil)
	r.Host = testAddr
	w = serve(s, r)
	if w.Code != http.StatusUnauthorized || len(w.Result().Cookies()) != 0 || !strings.Contains(w.Body.String(), "wrong token") {
		t.Fatalf("wrong token: %d %q cookies %v", w.Code, w.Body.String(), w.Result().Cookies())
	}
	// The cookie opens the pages.
	if w := serve(s, request("GET", "/", "")); w.Code != http.StatusOK {
		t.Fatalf("with the cookie: %d %s", w.Code, w.Body.String())
	}
}

func TestHostRebinding(t *testing.T) {
	s := newTestServer(t, newFake(testAgents()...))
	for host, want := range map[string]int{
		"127.0.0.1:4321": 200, "localhost:4321": 200, "LOCALHOST:4321": 200, "[::1]:4321": 200, "dash.example:4321": 200,
		"evil.example:4321": 421, "127.0.0.1:80": 421, "127.0.0.1": 421, "localhost.evil.example:4321": 421, "": 421,
	} {
		r := request("GET", "/", "")
		r.Host = host
		if w := serve(s, r); w.Code != want {
			t.Errorf("Host %q: %d, want %d (%s)", host, w.Code, want, w.Body.String())
		}
	}
	// Port 80, which a browser leaves out of Host.
	s80, err := New(newFake(testAgents()...), Options{Token: testToken, Addr: "127.0.0.1:80"})
	if err != nil {
		t.Fatal(err)
	}
	for host, want := range map[string]int{"127.0.0.1": 200, "localhost": 200, "[::1]": 200, "127.0.0.1:80": 200, "evil.example": 421} {
		r := httptest.NewRequest("GET", "/", nil)
		r.Host = host
		r.AddCookie(&http.Cookie{Name: CookieName + "-80", Value: testToken})
		if w := serve(s80, r); w.Code != want {
			t.Errorf("port 80, Host %q: %d, want %d", host, w.Code, want)
		}
	}
	// Before the token too: a rebinding page cannot even trade it.
	r := httptest.NewRequest("GET", "/?token="+testToken, nil)
	r.Host = "evil.example:4321"
	if w := serve(s, r); w.Code != 421 || len(w.Result().Cookies()) != 0 {
		t.Errorf("token through a foreign Host: %d, cookies %v", w.Code, w.Result().Cookies())
	}
}

func TestOrigin(t *testing.T) {
	f := newFake(testAgents()...)
	s := newTestServer(t, f)
	for _, origin := range []string{"", "null", "http://evil.example", "http://127.0.0.1:9999", "https://127.0.0.1:4321", "http://localhost:4321"} {
		for _, path := range []string{"/agents/bot/restart", "/agents/bot/prompt", "/agents/bot/tasks/1/rerun"} {
			r := request("POST", path, "text=hi")
			r.Header.Set("Origin", origin)
			if origin == "" {
				r.Header.Del("Origin")
			}
			if w := serve(s, r); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "cross-origin") {
				t.Errorf("POST %s Origin %q: %d %q, want 403", path, origin, w.Code, w.Body.String())
			}
		}
	}
	if p, c := f.calls(); len(p)+len(c) != 0 {
		t.Fatalf("refused requests reached the agents: %v %v", p, c)
	}
	// Only POST changes anything; other methods are refused.
	for _, m := range []string{"GET", "PUT", "DELETE"} {
		r := request(m, "/agents/bot/restart", "")
		r.Header.Set("Origin", "http://"+testAddr)
		if w := serve(s, r); w.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s restart: %d, want 405", m, w.Code)
		}
	}
	w := serve(s, request("POST", "/agents/bot/restart", ""))
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/agents/bot" {
		t.Fatalf("restart form: %d %q", w.Code, w.Header().Get("Location"))
	}
	if _, c := f.calls(); len(c) != 1 || c[0] != "restart bot" {
		t.Fatalf("controls: %v", c)
	}
	if w := serve(s, request("POST", "/agents/bot/explode", "")); w.Code != 404 {
		t.Errorf("unknown action: %d", w.Code)
	}
	if w := serve(s, request("POST", "/agents/nobody/stop", "")); w.Code != 404 || !strings.Contains(w.Body.String(), "nobody") {
		t.Errorf("unknown agent: %d %q", w.Code, w.Body.String())
	}
}

func TestSecurityHeaders(t *testing.T) {
	s := newTestServer(t, newFake(testAgents()...))
	w := serve(s, request("GET", "/", ""))
	h := w.Header()
	if csp := h.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") != "same-origin" {
		t.Errorf("headers %v", h)
	}
	// Unauthorized answers carry them too.
	r := httptest.NewRequest("GET", "/", nil)
	r.Host = testAddr
	if w := serve(s, r); w.Header().Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("401 without headers: %v", w.Header())
	}
}

const hostileTitle = `<script>alert(1)</script>`

func hostileLog() string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"` +
		jsonEsc(hostileTitle) + `","status":"pending"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"<img src=x onerror=alert(2)>"}}}}
`
}

func jsonEsc(s string) string { return strings.ReplaceAll(s, `"`, `\"`) }

func TestEscaping(t *testing.T) {
	agents := testAgents()
	agents[0].LastTask = &tasklog.Summary{Task: 1, Source: "cli", StopReason: "<b>end</b>", Time: time.Now()}
	agents[0].LastError = hostileTitle
	agents[0].State = "crashed"
	f := newFake(agents...)
	f.logs["bot/1"] = []byte(hostileLog())
	s := newTestServer(t, f)
	for _, path := range []string{"/", "/agents/bot", "/agents/bot/tasks/1"} {
		body := serve(s, request("GET", path, "")).Body.String()
		for _, bad := range []string{"<script>alert", "<img src=x", "<b>end"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: agent text %q unescaped:\n%s", path, bad, body)
			}
		}
	}
	body := serve(s, request("GET", "/agents/bot/tasks/1", "")).Body.String()
	if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("tool title not shown as text:\n%s", body)
	}
}

// TestTaskPageSummary: an ended task's page shows its prompt (as text),
// source, start and duration; a running one's says they come at its end.
func TestTaskPageSummary(t *testing.T) {
	agents := testAgents()
	end := time.Date(2026, 11, 29, 10, 0, 1, 500e6, time.UTC)
	agents[0].LastTask = &tasklog.Summary{Task: 1, Source: "cron[0]", Prompt: "<b>triage</b> the queue", StopReason: "end_turn", DurationMs: 1500, Time: end}
	f := newFake(agents...)
	f.logs["bot/1"], f.logs["bot/2"] = []byte(hostileLog()), nil
	s := newTestServer(t, f)
	body := serve(s, request("GET", "/agents/bot/tasks/1", "")).Body.String()
	for _, want := range []string{`<dd id="task-prompt">&lt;b&gt;triage&lt;/b&gt; the queue</dd>`, `<dd id="task-source">cron[0]</dd>`,
		`<time id="task-start" datetime="2026-11-29T10:00:00Z">`, `<dd id="task-duration">1.5s</dd>`} {
		if !strings.Contains(body, want) {
			t.Errorf("task page lacks %s:\n%s", want, body)
		}
	}
	if body := serve(s, request("GET", "/agents/bot/tasks/2", "")).Body.String(); !strings.Contains(body, "Running:") || strings.Contains(body, "task-prompt") {
		t.Errorf("running task's page:\n%s", body)
	}
}

// TestRerun: an employee's ended task runs again with its prompt, from
// its page's form; a prompt its summary may have cut, a running task
// and a service's task are refused, and nothing is queued for them.
func TestRerun(t *testing.T) {
	agents := testAgents()
	agents[0].LastTask = &tasklog.Summary{Task: 1, Source: "cli", Prompt: "triage <b>#12</b>", Time: time.Now()}
	agents[1].LastTask = &tasklog.Summary{Task: 4, Source: "cli", Prompt: "hi", Time: time.Now()}
	f := newFake(agents...)
	f.logs["bot/1"], f.logs["svc/4"] = nil, nil
	s := newTestServer(t, f)
	if page := serve(s, request("GET", "/agents/bot/tasks/1", "")).Body.String(); !strings.Contains(page, `<form method="post" action="/agents/bot/tasks/1/rerun"`) {
		t.Fatalf("no Run again form:\n%s", page)
	}
	for _, rt := range []struct{ method, path string }{{"POST", "/agents/bot/tasks/1/rerun"}, {"GET", "/canvases"}} {
		r := request(rt.method, rt.path, "")
		r.Host = "evil.example:4321"
		if w := serve(s, r); w.Code != http.StatusMisdirectedRequest {
			t.Fatalf("%s %s, another Host: %d, want 421", rt.method, rt.path, w.Code)
		}
	}
	w := serve(s, request("POST", "/agents/bot/tasks/1/rerun", ""))
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/agents/bot" {
		t.Fatalf("rerun: %d %q", w.Code, w.Body.String())
	}
	if p, _ := f.calls(); len(p) != 1 || p[0] != "bot: triage <b>#12</b>" {
		t.Fatalf("queued %q", p)
	}
	for path, want := range map[string]string{"/agents/bot/tasks/2/rerun": "no ended task", "/agents/svc/tasks/4/rerun": "only an employee's",
		"/agents/bot/tasks/x/rerun": "a number", "/agents/nobody/tasks/1/rerun": "nobody"} {
		if w := serve(s, request("POST", path, "")); w.Code < 400 || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s: %d %q, want %q", path, w.Code, w.Body.String(), want)
		}
	}
	if page := serve(s, request("GET", "/agents/svc/tasks/4", "")).Body.String(); strings.Contains(page, "/rerun") {
		t.Errorf("a service's task offers Run again")
	}
	agents[0].LastTask.Prompt = strings.Repeat("é", tasklog.PromptMax)
	f.set(agents[0])
	if w := serve(s, request("POST", "/agents/bot/tasks/1/rerun", "")); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "not kept whole") {
		t.Errorf("cut prompt: %d %q", w.Code, w.Body.String())
	}
	if p, _ := f.calls(); len(p) != 1 {
		t.Fatalf("refused reruns queued %q", p)
	}
}

func TestBodyBound(t *testing.T) {
	f := newFake(testAgents()...)
	s := newTestServer(t, f)
	w := serve(s, request("POST", "/agents/bot/prompt", "text="+strings.Repeat("a", MaxBody)))
	if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "over") {
		t.Fatalf("oversized prompt: %d %q", w.Code, w.Body.String())
	}
	w = serve(s, request("POST", "/agents/bot/prompt", "text=++"))
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "empty prompt") {
		t.Fatalf("empty prompt: %d %q", w.Code, w.Body.String())
	}
	if p, _ := f.calls(); len(p) != 0 {
		t.Fatalf("refused prompts ran: %v", p)
	}
}

func TestPromptStreams(t *testing.T) {
	f := newFake(testAgents()...)
	f.reply = strings.Split(strings.TrimSpace(hostileLog()), "\n")
	s := newTestServer(t, f)
	w := serve(s, request("POST", "/agents/bot/prompt", "text="+url.QueryEscape("hello there")))
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/x-ndjson" {
		t.Fatalf("prompt: %d %v", w.Code, w.Header())
	}
	want := `{"kind":"tool","id":"t1","title":"\u003cscript\u003ealert(1)\u003c/script\u003e","status":"pending"}
{"kind":"text","text":"\u003cimg src=x onerror=alert(2)\u003e"}
{"kind":"done","status":"end_turn","text":"task 1"}
`
	if got := w.Body.String(); got != want {
		t.Fatalf("stream:\n%s\nwant:\n%s", got, want)
	}
	if p, _ := f.calls(); len(p) != 1 || p[0] != "bot: hello there" {
		t.Fatalf("prompts %v", p)
	}
}

// TestPromptStopOnce: the prompt box's stream says the stop reason once,
// in its last item, though the turn's answer (in the session's messages)
// carries it too. (issue #35 item 4)
func TestPromptStopOnce(t *testing.T) {
	f := newFake(testAgents()...)
	f.reply = []string{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`}
	s := newTestServer(t, f)
	w := serve(s, request("POST", "/agents/bot/prompt", "text=hello"))
	want := `{"kind":"text","text":"hi"}
{"kind":"done","status":"end_turn","text":"task 1"}
`
	if got := w.Body.String(); got != want {
		t.Fatalf("stream:\n%s\nwant:\n%s", got, want)
	}
}

func TestCanvasRoute(t *testing.T) {
	f := newFake(testAgents()...)
	f.canvas["bot"] = "<p>hi</p>"
	s := newTestServer(t, f)
	w := serve(s, request("GET", "/agents/bot/canvas", ""))
	if w.Code != 200 || w.Body.String() != "<p>hi</p>" {
		t.Fatalf("canvas: %d %q", w.Code, w.Body.String())
	}
	if csp := w.Header().Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox allow-scripts;") || strings.Contains(csp, "allow-same-origin") || !strings.Contains(csp, "default-src 'none'") {
		t.Fatalf("canvas CSP %q", csp)
	}
	page := serve(s, request("GET", "/agents/bot", "")).Body.String()
	if !strings.Contains(page, `sandbox="allow-scripts"`) || strings.Contains(page, "allow-same-origin") {
		t.Fatalf("canvas frame not sandboxed:\n%s", page)
	}
	// A service has no canvas, on the page or at its route.
	if w := serve(s, request("GET", "/agents/svc/canvas", "")); w.Code != 404 || !strings.Contains(w.Body.String(), "only employees") {
		t.Fatalf("service canvas: %d %q", w.Code, w.Body.String())
	}
	if page := serve(s, request("GET", "/agents/svc", "")).Body.String(); strings.Contains(page, "iframe") {
		t.Fatalf("a service's page has a canvas frame")
	}
}

// TestCanvasWall: the wall lists every employee's canvas frame, with
// the agent page's sandbox, and no service's.
func TestCanvasWall(t *testing.T) {
	f := newFake(append(testAgents(), Agent{AgentStatus: up.AgentStatus{Name: "<b>x", Archetype: "employee"}})...)
	f.canvas["bot"] = "<p>hi</p>"
	s := newTestServer(t, f)
	w := serve(s, request("GET", "/canvases", ""))
	if w.Code != 200 {
		t.Fatalf("wall: %d %q", w.Code, w.Body.String())
	}
	wall := w.Body.String()
	frame := regexp.MustCompile(`<iframe [^>]*>`)
	agentFrame := frame.FindString(serve(s, request("GET", "/agents/bot", "")).Body.String())
	frames := frame.FindAllString(wall, -1)
	if len(frames) != 2 || frames[1] != agentFrame || !strings.Contains(agentFrame, `sandbox="allow-scripts"`) || !strings.Contains(agentFrame, `src="/agents/bot/canvas"`) {
		t.Fatalf("wall frames %q, want the agent page's %q and one for <b>x", frames, agentFrame)
	}
	if !strings.Contains(frames[0], `data-canvas="&lt;b&gt;x"`) || !strings.Contains(frames[0], "hidden") || strings.Contains(wall, "<b>x") {
		t.Fatalf("an employee without a canvas: %q (escaped, hidden)", frames[0])
	}
	if strings.Contains(wall, "svc") {
		t.Fatalf("a service on the wall:\n%s", wall)
	}
}

// liveServer is the dashboard on a real listener, for live connections.
func liveServer(t *testing.T, f *fake, maxLive int) (*Server, *httptest.Server) {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	s, err := New(f, Options{Token: testToken, Addr: ts.Listener.Addr().String(), MaxLive: maxLive})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = s
	ts.Start()
	t.Cleanup(ts.Close)
	return s, ts
}

// liveCookie is the session cookie of the dashboard at ts.
func liveCookie(ts *httptest.Server) *http.Cookie {
	_, port, _ := strings.Cut(ts.Listener.Addr().String(), ":")
	return &http.Cookie{Name: CookieName + "-" + port, Value: testToken}
}

func openLive(t *testing.T, ts *httptest.Server) (*http.Response, error) {
	t.Helper()
	req, _ := http.NewRequest("GET", ts.URL+"/live", nil)
	req.AddCookie(liveCookie(ts))
	return ts.Client().Do(req)
}

func TestLiveBound(t *testing.T) {
	_, ts := liveServer(t, newFake(testAgents()...), 2)
	var open []*http.Response
	for range 2 {
		res, err := openLive(t, ts)
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("live: %v %v", res, err)
		}
		open = append(open, res)
	}
	res, err := openLive(t, ts)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(b), "at most 2") {
		t.Fatalf("third live connection: %d %q", res.StatusCode, b)
	}
	// One closed frees its place: the handler returns once its request's
	// context ends, which the next attempt may race; it retries only on
	// 429 and the bound is what is checked.
	open[0].Body.Close()
	for {
		res, err := openLive(t, ts)
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode == 200 {
			res.Body.Close()
			break
		}
		res.Body.Close()
	}
	open[1].Body.Close()
}

// nextEvent reads the next server-sent event of kind.
func nextEvent(t *testing.T, sc *bufio.Scanner, kind string) string {
	t.Helper()
	ev := ""
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "event: "):
			ev = strings.TrimPrefix(l, "event: ")
		case strings.HasPrefix(l, "data: ") && ev == kind:
			return strings.TrimPrefix(l, "data: ")
		}
	}
	t.Fatalf("no %s event: %v", kind, sc.Err())
	return ""
}

func TestLiveCard(t *testing.T) {
	f := newFake(testAgents()...)
	s, ts := liveServer(t, f, 0)
	res, err := openLive(t, ts)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("live: %v %v", res, err)
	}
	defer res.Body.Close()
	next := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := testAgents()[0]
	a.State, a.NextStart, a.Restarts = "backoff", &next, 1
	f.set(a)
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "process:crash", Agent: "bot", Time: next, Data: map[string]any{"state": "backoff"}}})
	sc := bufio.NewScanner(res.Body)
	if e := nextEvent(t, sc, "entry"); !strings.Contains(e, `"event":"process:crash"`) || !strings.Contains(e, `"agent":"bot"`) {
		t.Fatalf("entry %s", e)
	}
	c := nextEvent(t, sc, "agent")
	if !strings.Contains(c, `"stateText":"backoff: next restart at `+next.Local().Format(stamp)+`"`) || !strings.Contains(c, `"class":"wait"`) {
		t.Fatalf("card %s", c)
	}
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "task:done", Agent: "bot"}, Hook: &hooks.Result{Hook: "notify", Duration: 1500 * time.Millisecond}})
	if e := nextEvent(t, sc, "entry"); !strings.Contains(e, `"hook":"notify"`) || !strings.Contains(e, `"outcome":"ok"`) || !strings.Contains(e, `"durationMs":1500`) {
		t.Fatalf("hook entry %s", e)
	}
	s.CanvasUpdated("bot")
	if e := nextEvent(t, sc, "canvas"); e != `{"name":"bot"}` {
		t.Fatalf("canvas %s", e)
	}
	// The events page lists the timeline, newest first, filtered.
	host := ts.Listener.Addr().String()
	get := func(path string) string {
		r := httptest.NewRequest("GET", path, nil)
		r.Host = host
		r.AddCookie(liveCookie(ts))
		return serve(s, r).Body.String()
	}
	page := get("/events?event=process:crash")
	if !strings.Contains(page, "process:crash") || strings.Contains(page, "notify") {
		t.Fatalf("events filtered by event:\n%s", page)
	}
	page = get("/events?agent=svc")
	if strings.Contains(page, "<td>process:crash") || !strings.Contains(page, "matching the filter") {
		t.Fatalf("events filtered by agent:\n%s", page)
	}
}

func TestLiveDropsForSlowPage(t *testing.T) {
	s := newTestServer(t, newFake(testAgents()...))
	sb := s.live.subscribe()
	for range liveQueue + 10 {
		s.CanvasUpdated("bot")
	}
	if s.Dropped() != 10 || !sb.lost.Load() || len(sb.c) != liveQueue {
		t.Fatalf("dropped %d, lost %v, queued %d", s.Dropped(), sb.lost.Load(), len(sb.c))
	}
	for range liveQueue + 10 {
		s.Observe(hooks.Observation{Event: hooks.Event{Name: "idle"}})
	}
	if n := len(s.live.timeline()); n != liveQueue+10 {
		t.Fatalf("timeline %d", n)
	}
}

// TestLiveCardOfEvent: a process event's card shows the state the event
// left the agent in, even when the agent has moved on since (a backoff
// of one second ends before a slow page is told).
func TestLiveCardOfEvent(t *testing.T) {
	f := newFake(testAgents()...) // bot: running, pid 42 (restarted already)
	s, ts := liveServer(t, f, 0)
	res, err := openLive(t, ts)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("live: %v %v", res, err)
	}
	defer res.Body.Close()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "process:crash", Agent: "bot", Time: at,
		Data: map[string]any{"state": "backoff", "backoff": "1s", "pid": 41, "error": "exit status 3\nstderr: panic: boom"}}})
	sc := bufio.NewScanner(res.Body)
	c := nextEvent(t, sc, "agent")
	// A backing-off card says its last error's first line. (issue #35 item 11)
	want := `"stateText":"backoff: next restart at ` + at.Add(time.Second).Local().Format(stamp) + ` (last error: exit status 3)"`
	if !strings.Contains(c, want) || strings.Contains(c, `"pid"`) {
		t.Fatalf("card %s, want %s and no pid", c, want)
	}
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "process:start", Agent: "bot", Time: at, Data: map[string]any{"state": "running", "pid": 42}}})
	if c := nextEvent(t, sc, "agent"); !strings.Contains(c, `"stateText":"running"`) || !strings.Contains(c, `"pid":42`) {
		t.Fatalf("card %s", c)
	}
}

// TestTaskLive: a task's log streams as it grows, its items rendered;
// a task's start is told to the live pages.
func TestTaskLive(t *testing.T) {
	f := newFake(testAgents()...)
	p := filepath.Join(t.TempDir(), "1.jsonl")
	lines := strings.SplitAfter(hostileLog(), "\n")
	if err := os.WriteFile(p, []byte(lines[0]), 0o600); err != nil {
		t.Fatal(err)
	}
	f.paths["bot/1"] = p
	s, ts := liveServer(t, f, 0)
	all, err := openLive(t, ts)
	if err != nil || all.StatusCode != 200 {
		t.Fatalf("live: %v %v", all, err)
	}
	defer all.Body.Close()
	s.TaskStarted("bot", 1)
	if e := nextEvent(t, bufio.NewScanner(all.Body), "task"); e != `{"name":"bot","task":1}` {
		t.Fatalf("task event %s", e)
	}
	req, _ := http.NewRequest("GET", ts.URL+"/agents/bot/tasks/1/live", nil)
	req.AddCookie(liveCookie(ts))
	res, err := ts.Client().Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("task live: %v %v", res, err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	if it := nextEvent(t, sc, "item"); !strings.Contains(it, `"kind":"tool"`) {
		t.Fatalf("first item %s", it)
	}
	fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(lines[1])
	fh.Close()
	if it := nextEvent(t, sc, "item"); !strings.Contains(it, `"kind":"text"`) {
		t.Fatalf("appended item %s", it)
	}
	r := httptest.NewRequest("GET", "/agents/bot/tasks/9/live", nil)
	r.Host = ts.Listener.Addr().String()
	r.AddCookie(liveCookie(ts))
	if w := serve(s, r); w.Code != http.StatusNotFound {
		t.Fatalf("unknown task: %d", w.Code)
	}
}

// TestTimelineRing: the timeline keeps the last TimelineMax entries, in
// order.
func TestTimelineRing(t *testing.T) {
	s := newTestServer(t, newFake())
	for i := range TimelineMax + 5 {
		s.Observe(hooks.Observation{Event: hooks.Event{Name: fmt.Sprintf("e%d", i)}})
	}
	tl := s.live.timeline()
	if len(tl) != TimelineMax || tl[0].Event != "e5" || tl[TimelineMax-1].Event != fmt.Sprintf("e%d", TimelineMax+4) {
		t.Fatalf("timeline of %d: first %s, last %s", len(tl), tl[0].Event, tl[len(tl)-1].Event)
	}
	for i := 1; i < len(tl); i++ {
		if tl[i].Seq != tl[i-1].Seq+1 {
			t.Fatalf("out of order at %d: %d after %d", i, tl[i].Seq, tl[i-1].Seq)
		}
	}
}

// TestTimelineBounds: big events (signed webhook deliveries of 64 KiB,
// each run by a hook) keep at most DataMax of their data, once (a hook
// run's entry has none), and the timeline at most TimelineBytes in all,
// so the events page is bounded too; the data is escaped once, for
// HTML, by the page. Before, every entry kept its data whole, the hook
// run's a second copy, JSON-escaped for HTML and then escaped again by
// the page. (issue #30 item 10)
func TestTimelineBounds(t *testing.T) {
	s, ts := liveServer(t, newFake(testAgents()...), 0)
	payload := strings.Repeat(`a & b <i> "q" `, 64<<10/14)
	for i := range 100 {
		ev := hooks.Event{Name: "webhook:gh", Time: time.Unix(int64(i), 0), Data: map[string]any{"payload": map[string]any{"body": payload}}}
		s.Observe(hooks.Observation{Event: ev})
		s.Observe(hooks.Observation{Event: ev, Hook: &hooks.Result{Hook: "triage", Event: ev}})
	}
	tl := s.live.timeline()
	kept := 0
	for _, e := range tl {
		kept += e.size()
		switch {
		case e.Hook != "" && e.Data != "":
			t.Fatalf("a hook run keeps its event's data again: %d bytes", len(e.Data))
		case e.Hook == "" && (len(e.Data) > DataMax+32 || !strings.HasSuffix(e.Data, " bytes more)")):
			t.Fatalf("an event keeps %d bytes of data, ending %q", len(e.Data), e.Data[max(0, len(e.Data)-40):])
		}
	}
	if kept > TimelineBytes || kept != s.live.bytes {
		t.Errorf("the timeline keeps %d bytes (counted %d), bound %d", kept, s.live.bytes, TimelineBytes)
	}
	get := func(path string) string {
		r := httptest.NewRequest("GET", path, nil)
		r.Host = ts.Listener.Addr().String()
		r.AddCookie(liveCookie(ts))
		return serve(s, r).Body.String()
	}
	// Escaped for HTML, a byte takes at most 6 (`"` is &#34;).
	if page := get("/events"); len(page) > 6*TimelineBytes {
		t.Errorf("the events page is %d bytes, bound %d", len(page), 6*TimelineBytes)
	}
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "webhook:gh", Data: map[string]any{"title": "fish & chips <b>"}}})
	page := get("/events")
	if !strings.Contains(page, `fish &amp; chips &lt;b&gt;`) || strings.Contains(page, `\u0026`) || strings.Contains(page, "&amp;amp;") {
		t.Errorf("the data is not escaped once:\n%s", page[strings.Index(page, "<tbody>"):][:400])
	}
}

// TestTimelineOrder: the timeline is in time order whatever the order
// the entries come in, newest first on the page; a hook run is stamped
// when its outcome came, not at its event's time plus its duration (it
// may have waited to run). (issue #35 item 4)
func TestTimelineOrder(t *testing.T) {
	s, ts := liveServer(t, newFake(testAgents()...), 0)
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, n := range []int{1, 3, 2} {
		s.Observe(hooks.Observation{Event: hooks.Event{Name: fmt.Sprintf("e%d", n), Time: at.Add(time.Duration(n) * time.Second)}})
	}
	before := time.Now()
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "e0", Time: at}, Hook: &hooks.Result{Hook: "slow", Duration: time.Second}})
	tl := s.live.timeline()
	var got []string
	for _, e := range tl {
		got = append(got, e.Event)
	}
	if strings.Join(got, " ") != "e1 e2 e3 e0" || tl[3].Time.Before(before) {
		t.Errorf("timeline %v, the hook run at %v (observed after %v)", got, tl[3].Time, before)
	}
	r := httptest.NewRequest("GET", "/events", nil)
	r.Host = ts.Listener.Addr().String()
	r.AddCookie(liveCookie(ts))
	page := serve(s, r).Body.String()
	if i, j, k := strings.Index(page, "<td>e3"), strings.Index(page, "<td>e2"), strings.Index(page, "<td>e1"); i < 0 || i > j || j > k {
		t.Errorf("the page is not newest first:\n%s", page)
	}
}
