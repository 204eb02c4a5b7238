//go:build unix

package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestUpDashboardHooks: the events page of a real up lists the config's
// hooks and an employee's runtime subscription, each with its origin,
// as `actctl get hooks` does (issue #25: "shows in actctl get hooks and
// the dashboard with its origin").
func TestUpDashboardHooks(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home)
	u := p.waitLine(`up: dashboard (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)[1]
	p.waitLine(`up: triage: process:start pid`)
	cs := mcpConnect(t, root, home, "triage")
	var sub struct{ ID string }
	if text, isErr := callTool(t, cs, "subscribe", map[string]any{"event": "task:done", "agents": []string{"api"}, "prompt": "api did {{event.data.task}}"}, &sub); isErr || sub.ID == "" {
		t.Fatalf("subscribe: %s", text)
	}
	p.waitLine(`up: triage: subscribed to task:done \(` + sub.ID + `\)`)
	res, err := noRedirect.Get(u)
	if err != nil || len(res.Cookies()) != 1 {
		t.Fatalf("token exchange: %v %v", res, err)
	}
	res.Body.Close()
	pu, _ := url.Parse(u)
	req, _ := http.NewRequest("GET", "http://"+pu.Host+"/events", nil)
	req.AddCookie(res.Cookies()[0])
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{
		`<tr><td>fail-start</td><td>process:start</td><td>*</td><td>run false</td><td>actant.cue</td></tr>`,
		`<tr><td>tell-triage</td><td>process:start</td><td>api</td><td>prompt triage</td><td>actant.cue</td></tr>`,
		`<tr><td>triage/` + sub.ID + `</td><td>task:done</td><td>api</td><td>prompt triage</td><td>agent triage (runtime)</td></tr>`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("events page lacks %s:\n%s", want, body)
		}
	}
}
