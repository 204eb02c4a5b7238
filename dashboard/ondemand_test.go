package dashboard

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/actctl/actctl/up"
)

// demandAgents are a repo agent with no process and a tool agent in a
// conversation, beside the agents up runs.
func demandAgents() []Agent {
	return append(testAgents(),
		Agent{AgentStatus: up.AgentStatus{Name: "repo1", Archetype: "repo", LaunchMode: "direct", State: "created"}, Backend: "codex", OnDemand: true},
		Agent{AgentStatus: up.AgentStatus{Name: "tool1", Archetype: "tool", LaunchMode: "direct", State: "running", Pid: 7}, Backend: "codex", OnDemand: true},
	)
}

// TestOnDemandCards: repo and tool agents have cards whose state says
// "on demand" or "in conversation", counted and filtered as such, with no
// box for the bulk start and stop. (issue #35 item 7)
func TestOnDemandCards(t *testing.T) {
	s := newTestServer(t, newFake(demandAgents()...))
	get := func(path string) string { return serve(s, request("GET", path, "")).Body.String() }
	page := get("/")
	if got := cardNames(page); got != "bot tool1 svc repo1" {
		t.Errorf("order %q", got)
	}
	for _, want := range []string{`all <span data-n="">4</span>`, `on demand <span data-n="on demand">1</span>`,
		`in conversation <span data-n="in conversation">1</span>`, `data-name="repo1" data-state="on demand"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the agents page lacks %s", want)
		}
	}
	if strings.Contains(page, `value="repo1" form="bulk"`) || strings.Contains(page, `value="tool1" form="bulk"`) {
		t.Error("an on-demand agent can be selected for a bulk start or stop")
	}
	for path, want := range map[string]string{"/?state=on+demand": "repo1", "/?state=in+conversation": "tool1", "/?archetype=repo": "repo1"} {
		if got := cardNames(get(path)); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	var cards []card
	if err := json.Unmarshal([]byte(get("/api/agents")), &cards); err != nil {
		t.Fatal(err)
	}
	for _, c := range cards {
		if want := c.Name == "repo1" || c.Name == "tool1"; c.OnDemand != want || (want && c.Up) {
			t.Errorf("card %+v", c)
		}
	}
}

// TestOnDemandPage: a repo agent's page has its files, its resolved
// template and New conversation (enabled with no process), and no Start,
// Stop or prompt box. (issue #35 item 7)
func TestOnDemandPage(t *testing.T) {
	s := newTestServer(t, newFake(demandAgents()...))
	page := serve(s, request("GET", "/agents/repo1", "")).Body.String()
	for _, want := range []string{`id="on-demand"`, `actctl chat repo1`, `<button id="new-conversation">New conversation</button>`,
		`id="h-files"`, `<pre class="describe">Name: repo1</pre>`, `href="/agents/repo1/sessions/s1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("repo1's page lacks %s", want)
		}
	}
	for _, not := range []string{`action="/agents/repo1/start"`, `action="/agents/repo1/stop"`, `id="prompt-form"`} {
		if strings.Contains(page, not) {
			t.Errorf("repo1's page has %s", not)
		}
	}
}
