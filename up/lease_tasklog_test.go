package up

import (
	"context"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/tasklog"
)

// TestLeaseNotInTaskLog: lease turns stay out of the task log, by
// decision (docs/runtime.md, "Session leases"); a prompt to the service
// through up is a task and is logged, numbered as the first.
func TestLeaseNotInTaskLog(t *testing.T) {
	h := newHarness(t, nil)
	s := service(t, "api")
	h.m.Sync([]Spec{s})
	h.wait("process:start", "api")
	c := h.lease("api", "yes")
	sid := c.newSession(t, t.TempDir())
	if r, err := c.prompt(sid, "session"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("lease prompt: %+v %v", r, err)
	}
	if sums, err := tasklog.Summaries(s.LogsDir); err != nil || len(sums) != 0 {
		t.Fatalf("task log after a lease turn: %+v %v", sums, err)
	}
	o, err := h.m.Prompt(context.Background(), "api", "hello", true, nil)
	if err != nil || o.Error != "" || o.Task != 1 {
		t.Fatalf("prompt through up: %+v %v", o, err)
	}
	if sums, err := tasklog.Summaries(s.LogsDir); err != nil || len(sums) != 1 || sums[0].Task != 1 {
		t.Fatalf("task log after a prompt: %+v %v", sums, err)
	}
}
