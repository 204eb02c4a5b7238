package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/actctl/actctl/control"
)

// TestSubscribeRefusals: every bad call of subscribe and unsubscribe is a
// tool error saying why, and nothing reaches up.
func TestSubscribeRefusals(t *testing.T) {
	cfg := workspace(t)
	for _, tc := range []struct {
		caller, tool string
		args         map[string]any
		want         string
	}{
		{"", Subscribe, map[string]any{"event": "idle", "prompt": "p"}, "subscribe: a subscription prompts the employee that made it, and this actctl mcp runs for no agent (--as): only an employee subscribes"},
		{"", Unsubscribe, map[string]any{"id": "s1"}, "unsubscribe: a subscription prompts the employee"},
		{"helper", Subscribe, map[string]any{"event": "idle", "prompt": "p"}, `tool subscribe is not available to agent "helper"`},
		{"server", Unsubscribe, map[string]any{"id": "s1"}, `tool unsubscribe is not available to agent "server"`},
		{"worker", Subscribe, map[string]any{"event": "idle", "prompt": " "}, "subscribe: the prompt is empty"},
		{"worker", Subscribe, map[string]any{"event": "task:dne", "prompt": "p"}, `subscribe: unknown event "task:dne"; events are agent:created`},
		{"worker", Subscribe, map[string]any{"event": "webhook:gh", "prompt": "p"}, `subscribe: unknown webhook "gh" in event "webhook:gh"`},
		{"worker", Subscribe, map[string]any{"event": "actctl:start", "agents": []string{"server"}, "prompt": "p"}, "actctl:start concerns no agent"},
		{"worker", Subscribe, map[string]any{"event": "task:done", "agents": []string{"srever"}, "prompt": "p"}, `subscribe: unknown agent "srever" (did you mean "server"?)`},
		{"worker", Unsubscribe, map[string]any{"id": ""}, "unsubscribe: no id"},
		// A prompt is kept and queued at each event: bounded (issue #30 item 11).
		{"worker", Subscribe, map[string]any{"event": "idle", "prompt": strings.Repeat("x", 2<<20)}, "subscribe: the prompt is 2097152 bytes, over the bound of 65536 (64 KiB)"},
	} {
		f := &fakeRunner{cfg: cfg}
		cs := connect(t, New(cfg, Options{Root: cfg.Root, Caller: tc.caller, Runner: f}))
		res, text := call(t, cs, tc.tool, tc.args)
		if !res.IsError || !strings.Contains(text, tc.want) {
			t.Errorf("%s as %q %v: %q (error %v), want %q", tc.tool, tc.caller, tc.args, text, res.IsError, tc.want)
		}
		if r := f.ran(); len(r) > 0 {
			t.Errorf("%s as %q: the runner ran %v", tc.tool, tc.caller, r)
		}
	}
}

// TestSubscribeThroughUp: an employee's subscribe and unsubscribe go to
// up as the caller's requests, and return up's subscription; without up
// the error says so.
func TestSubscribeThroughUp(t *testing.T) {
	cfg := workspace(t)
	var got []control.Request
	f := &fakeRunner{cfg: cfg, up: func(_ context.Context, req control.Request, _ func(control.Frame), result any) error {
		got = append(got, req)
		b, _ := json.Marshal(map[string]any{"id": "s7", "agent": req.Agent, "event": "task:done", "agents": []string{"server"}, "prompt": "p"})
		return json.Unmarshal(b, result)
	}}
	cs := connect(t, New(cfg, Options{Root: cfg.Root, Caller: "worker", Runner: f}))
	res, text := call(t, cs, Subscribe, map[string]any{"event": "task:done", "agents": []string{"server"}, "prompt": "{{event.agent}} is done"})
	if res.IsError || !strings.Contains(text, `"id":"s7"`) {
		t.Fatalf("subscribe: %s", text)
	}
	res, text = call(t, cs, Unsubscribe, map[string]any{"id": "s7"})
	if res.IsError {
		t.Fatalf("unsubscribe: %s", text)
	}
	if len(got) != 2 || got[0].Op != control.OpSubscribe || got[0].Agent != "worker" || got[0].Event != "task:done" ||
		got[0].Text != "{{event.agent}} is done" || len(got[0].Agents) != 1 || got[1].Op != control.OpUnsubscribe || got[1].ID != "s7" || got[1].Agent != "worker" {
		t.Errorf("requests %+v", got)
	}
	cs = connect(t, New(cfg, Options{Root: cfg.Root, Caller: "worker", Runner: &fakeRunner{cfg: cfg}}))
	if res, text := call(t, cs, Subscribe, map[string]any{"event": "idle", "prompt": "p"}); !res.IsError || !strings.Contains(text, "no actctl up is running") {
		t.Errorf("without up: %q", text)
	}
}
