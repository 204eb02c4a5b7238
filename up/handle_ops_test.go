package up

import (
	"context"
	"strings"
	"testing"

	"github.com/actctl/actctl/control"
)

// TestHandleKnowsEveryOp: every control op but lease (which Upgrade
// serves) reaches its handler in Handle: asked of an agent up does not
// run, each is refused for the agent, never as an unknown request.
func TestHandleKnowsEveryOp(t *testing.T) {
	h := newHarness(t, nil)
	for _, op := range control.Ops {
		if op == control.OpLease {
			continue
		}
		_, err := h.m.Handle(context.Background(), control.Request{Op: op, Agent: "nope"}, nil)
		if err != nil && strings.Contains(err.Error(), "does not know the request") {
			t.Errorf("op %s: %v", op, err)
		}
	}
	if _, err := h.m.Handle(context.Background(), control.Request{Op: "reboot"}, nil); err == nil || !strings.Contains(err.Error(), `does not know the request "reboot"`) {
		t.Errorf("unknown op: %v", err)
	}
}
