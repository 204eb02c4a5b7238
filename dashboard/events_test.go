package dashboard

import (
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/hooks"
)

// TestEventsFindAndGroup: the event filter is a prefix (process finds
// process:crash), a row links to its agent and task, its data is
// collapsed, and a hook run sits under the row of the delivery it ran
// for, not at the time its outcome came. (issue #35 item 13)
func TestEventsFindAndGroup(t *testing.T) {
	s := newTestServer(t, newFake(testAgents()...))
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	crash := hooks.Event{Name: "process:crash", Agent: "bot", Time: at, Data: map[string]any{"state": "backoff"}}
	done := hooks.Event{Name: "task:done", Agent: "bot", Time: at.Add(time.Second), Data: map[string]any{"task": uint64(7)}}
	delivery := hooks.Event{Name: "webhook:gh", Time: at.Add(2 * time.Second), Data: map[string]any{"body": "<b>x</b>"}}
	later := hooks.Event{Name: "task:queued", Agent: "svc", Time: at.Add(3 * time.Second)}
	for _, ev := range []hooks.Event{crash, done, delivery, later} {
		s.Observe(hooks.Observation{Event: ev})
	}
	s.Observe(hooks.Observation{Event: delivery, Hook: &hooks.Result{Hook: "triage", Event: delivery}})
	page := serve(s, request("GET", "/events?event=process", "")).Body.String()
	if !strings.Contains(page, "<td>process:crash") || strings.Contains(page, "<td>task:done") {
		t.Errorf("event=process does not find process:crash alone:\n%s", page)
	}
	page = serve(s, request("GET", "/events", "")).Body.String()
	for _, want := range []string{`<a href="/agents/bot">bot</a>`, `<a href="/agents/bot/tasks/7">task #7</a>`,
		`<details class="data"><summary>data (`, `<code>{&#34;body&#34;:&#34;&lt;b&gt;x&lt;/b&gt;&#34;}</code></details>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the events page lacks %s", want)
		}
	}
	// Newest first, the hook run (observed last) under its delivery.
	var order []string
	for _, row := range strings.Split(page, "<tr data-t=")[1:] {
		cells := strings.Split(row, "<td")
		order = append(order, cells[2][1:strings.Index(cells[2], "</td>")]+"/"+cells[4][strings.Index(cells[4], ">")+1:strings.Index(cells[4], "</td>")])
	}
	if got := strings.Join(order, " "); got != "task:queued/ webhook:gh/ webhook:gh/triage task:done/ process:crash/" {
		t.Errorf("rows %s, want the hook run under its delivery", got)
	}
}
