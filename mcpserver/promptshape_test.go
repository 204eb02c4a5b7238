package mcpserver

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/up"
)

// TestPromptAgentFailureShape: a prompt whose turn did not complete (no
// stop reason: the agent crashed, up stopped) is a tool error with the
// reason and the task's log, as run_agent's is; a completed turn that did
// not end with end_turn is a result with its stop reason and error, as
// run_agent's is (issue #22 item 16).
func TestPromptAgentFailureShape(t *testing.T) {
	cfg := workspace(t)
	for _, tc := range []struct {
		name    string
		out     up.Outcome
		err     error
		isError bool
		want    []string
	}{
		{"crashed", up.Outcome{Agent: "worker", Task: 4, Error: "backend exited during the turn", Log: "tasks/20261122T090000Z-4.jsonl"},
			errors.New("backend exited during the turn"), true,
			[]string{"prompt_agent: worker: task 4: backend exited during the turn (actctl logs worker --task 4)"}},
		{"up stopping", up.Outcome{Agent: "worker", Task: 5, Error: "actctl up is shutting down"}, nil, true,
			[]string{"prompt_agent: worker: task 5: actctl up is shutting down"}},
		{"refusal", up.Outcome{Agent: "worker", Task: 6, StopReason: "refusal", Error: "the turn ended: refusal"},
			errors.New("the turn ended: refusal"), false,
			[]string{`"stopReason":"refusal"`, `"error":"the turn ended: refusal"`, `"task":6`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeRunner{cfg: cfg, up: func(ctx context.Context, r control.Request, onFrame func(control.Frame), result any) error {
				*result.(*up.Outcome) = tc.out
				return tc.err
			}}
			cs := connect(t, New(cfg, Options{Root: cfg.Root, Runner: f}))
			res, text := call(t, cs, PromptAgent, map[string]any{"agent": "worker", "prompt": "hi"})
			if res.IsError != tc.isError {
				t.Fatalf("%s: error %v, want %v", text, res.IsError, tc.isError)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("%s: want %q", text, w)
				}
			}
		})
	}
}
