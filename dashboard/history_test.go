package dashboard

import (
	"bufio"
	"strings"
	"testing"
	"time"
	_ "time/tzdata"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/tasklog"
)

// TestLiveTasks: an agent's queue and task history follow its events
// over /live (a "tasks" message), agent text escaped as JSON; a
// process event sends none.
func TestLiveTasks(t *testing.T) {
	f := newFake(testAgents()...)
	f.logs["bot/3"] = []byte(hostileLog())
	s, ts := liveServer(t, f, 0)
	res, err := openLive(t, ts)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("live: %v %v", res, err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)

	f.setQueue("bot", Queued{ID: 3, Kind: "prompt", Prompt: "first", Running: true}, Queued{ID: 4, Kind: "prompt", Prompt: hostileTitle})
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "process:start", Agent: "bot", Data: map[string]any{"state": "running"}}})
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "user:prompt", Agent: "bot", Data: map[string]any{"task": 4}}})
	tasks := tasksUntilMark(t, s, sc)
	if len(tasks) != 1 {
		t.Fatalf("tasks messages %q, want one (user:prompt's, none for process:start)", tasks)
	}
	m := tasks[0]
	want := `{"name":"bot","queue":[{"id":3,"kind":"prompt","prompt":"first","running":true},{"id":4,"kind":"prompt","prompt":"` +
		strings.ReplaceAll(string(mustJSON(hostileTitle)), `"`, ``) + `"}]}`
	if m != want || strings.Contains(m, "<") {
		t.Fatalf("queued:\n got %s\nwant %s", m, want)
	}

	end := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := testAgents()[0]
	a.LastTask = &tasklog.Summary{Task: 3, Source: "dashboard", StopReason: "end_turn", Error: "<b>x</b>", DurationMs: 1500, Time: end}
	f.set(a)
	f.setQueue("bot", Queued{ID: 4, Kind: "prompt", Prompt: "second", Running: true})
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "task:done", Agent: "bot", Data: map[string]any{"task": 3}}})
	if tasks = tasksUntilMark(t, s, sc); len(tasks) != 1 {
		t.Fatalf("tasks messages %q, want one", tasks)
	}
	m = tasks[0]
	start := end.Add(-1500 * time.Millisecond)
	want = `{"name":"bot","queue":[{"id":4,"kind":"prompt","prompt":"second","running":true}],"done":{"task":3,"source":"dashboard",` +
		`"started":"` + start.Local().Format(stamp) + `","startedISO":"2026-01-02T03:04:03Z","duration":"1.5s","stopReason":"end_turn",` +
		`"error":"\u003cb\u003ex\u003c/b\u003e","perms":{"allowed":0,"denied":0}}}`
	if m != want {
		t.Fatalf("done:\n got %s\nwant %s", m, want)
	}

	// The page drawn at load has the same row and queue, for the script
	// to find (data-task) and replace (id="queue").
	r := request("GET", "/agents/bot", "")
	r.Host = ts.Listener.Addr().String()
	r.AddCookie(liveCookie(ts))
	page := serve(s, r).Body.String()
	for _, w := range []string{`<tr data-task="3">`, `<ol id="queue"><li>#4 prompt (running): second <form method="post" action="/agents/bot/tasks/4/cancel" class="inline cancel"><button data-task="4">Cancel</button></form></li></ol>`, `&lt;b&gt;x&lt;/b&gt;`} {
		if !strings.Contains(page, w) {
			t.Fatalf("page lacks %s:\n%s", w, page)
		}
	}
	if strings.Contains(page, "no-tasks") {
		t.Fatalf("page says no task ended")
	}
}

// tasksUntilMark returns the "tasks" messages sent so far: it sends a
// mark (a canvas message) and reads up to it, so that a missing message
// fails the test instead of waiting for it.
func tasksUntilMark(t *testing.T, s *Server, sc *bufio.Scanner) []string {
	t.Helper()
	s.CanvasUpdated("mark")
	var out []string
	ev := ""
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "event: "):
			ev = strings.TrimPrefix(l, "event: ")
		case ev == "canvas" && l == `data: {"name":"mark"}`:
			return out
		case ev == "tasks" && strings.HasPrefix(l, "data: "):
			out = append(out, strings.TrimPrefix(l, "data: "))
		}
	}
	t.Fatalf("no mark: %v", sc.Err())
	return nil
}

// TestLiveTasksIdle: with no live page open, an agent's events read
// no queue and no task log.
func TestLiveTasksIdle(t *testing.T) {
	f := newFake(testAgents()...)
	s := newTestServer(t, f)
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "task:done", Agent: "bot"}})
	s.TaskStarted("bot", 1)
	if f.queueN != 0 {
		t.Fatalf("Queue read %d times with no page open", f.queueN)
	}
	page := serve(s, request("GET", "/agents/svc", "")).Body.String()
	if !strings.Contains(page, `<table id="tasks" hidden>`) || !strings.Contains(page, `<p id="no-tasks">`) {
		t.Fatalf("an agent with no task:\n%s", page)
	}
}

// TestEventsHooks: the events page lists the hooks with their origin,
// the config's and an employee's subscription, their text escaped.
func TestEventsHooks(t *testing.T) {
	f := newFake(testAgents()...)
	s := newTestServer(t, f)
	if page := serve(s, request("GET", "/events", "")).Body.String(); !strings.Contains(page, `<p id="no-hooks">`) {
		t.Fatalf("no hooks:\n%s", page)
	}
	f.hooks = []Hook{
		{Name: "log-start", On: "process:start", Agents: "*", Action: "run sh -c <b>x</b>", Origin: "actant.cue"},
		{Name: "bot/s1", On: "task:done", Agents: "svc", Action: "prompt bot", Origin: "agent bot (runtime)"},
	}
	page := serve(s, request("GET", "/events", "")).Body.String()
	for _, w := range []string{
		`<tr><td>log-start</td><td>process:start</td><td>*</td><td>run sh -c &lt;b&gt;x&lt;/b&gt;</td><td>actant.cue</td></tr>`,
		`<tr><td>bot/s1</td><td>task:done</td><td>svc</td><td>prompt bot</td><td>agent bot (runtime)</td></tr>`,
	} {
		if !strings.Contains(page, w) {
			t.Fatalf("page lacks %s:\n%s", w, page)
		}
	}
}

// TestLiveTicks: an employee's "tasks" message carries its next ticks,
// in the schedule's zone and RFC 3339, after a tick; a service's none.
func TestLiveTicks(t *testing.T) {
	f := newFake(testAgents()...)
	paris, err := time.LoadLocation("Europe/Paris") // time/tzdata: loads everywhere
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 2, 9, 0, 0, 0, paris)
	f.ticks = map[string][]time.Time{"bot": {at, at.Add(time.Hour)}}
	s, ts := liveServer(t, f, 0)
	res, err := openLive(t, ts)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("live: %v %v", res, err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "heartbeat:tick", Agent: "bot"}})
	s.Observe(hooks.Observation{Event: hooks.Event{Name: "user:prompt", Agent: "svc"}})
	tasks := tasksUntilMark(t, s, sc)
	want := []string{
		`{"name":"bot","queue":[],"ticks":[{"zone":"2026-01-02 09:00:00 CET","iso":"2026-01-02T09:00:00+01:00"},{"zone":"2026-01-02 10:00:00 CET","iso":"2026-01-02T10:00:00+01:00"}]}`,
		`{"name":"svc","queue":[]}`,
	}
	if strings.Join(tasks, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tasks messages:\n%s\nwant\n%s", strings.Join(tasks, "\n"), strings.Join(want, "\n"))
	}
	r := request("GET", "/agents/bot", "")
	r.Host = ts.Listener.Addr().String()
	r.AddCookie(liveCookie(ts))
	if page := serve(s, r).Body.String(); !strings.Contains(page, `<tbody id="ticks">`) {
		t.Fatalf("page has no ticks body:\n%s", page)
	}
}
