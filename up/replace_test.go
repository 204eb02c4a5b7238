package up

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schedule"
)

// TestReplaceWaitsForOldProcess: a service that becomes an employee is
// replaced once its process has stopped; a second config cycle while the
// old process is still in its grace (it ignores SIGTERM) starts nothing
// either. The new process starts only after the old one's stop, so the
// runtime record ends naming the new process as running (issue #26 item 2).
// On the old code the second cycle started the new process at once, and
// the old one's stop, written after it, left the record saying stopped.
func TestReplaceWaitsForOldProcess(t *testing.T) {
	h := newHarness(t, nil)
	svc := service(t, "api")
	svc.Record = filepath.Join(t.TempDir(), "api.json")
	h.m.Sync([]Spec{svc})
	first := h.wait("process:start", "api")
	if _, err := h.m.Prompt(context.Background(), "api", "deaf-to-term", true, nil); err != nil {
		t.Fatal(err)
	}
	emp := employee(t, "api", schedule.Spec{})
	emp.Record = svc.Record
	h.m.Sync([]Spec{emp})
	pending(t, h.clk, 1) // the old process's grace: it ignores SIGTERM
	emp.Digest = "2"
	h.m.Sync([]Spec{emp}) // another cycle while the old one is in its grace
	if n := h.clk.Pending(); n != 1 {
		t.Errorf("%d timers pending after the second cycle, want the grace only: a new process is starting beside the old one", n)
	}
	if _, err := h.m.Prompt(context.Background(), "api", "hello", false, nil); err == nil || !strings.Contains(err.Error(), "agent api is being replaced") {
		t.Errorf("a prompt while the agent is replaced: %v", err)
	}
	h.clk.Advance(5 * time.Second) // the grace: the old process is killed
	stop := h.wait("process:stop", "api")
	second := h.wait("process:start", "api")
	if stop.Data["pid"] != first.Data["pid"] || second.Data["pid"] == first.Data["pid"] {
		t.Fatalf("stop %v, start %v after start %v", stop.Data, second.Data, first.Data)
	}
	if order := strings.Join(h.names(), " "); !strings.Contains(order, "process:stop/api process:start/api") {
		t.Errorf("events %s: the new process started before the old one stopped", order)
	}
	rec, err := runrecord.Read(emp.Record)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != "running" || rec.PID != second.Data["pid"] {
		b, _ := os.ReadFile(emp.Record)
		t.Fatalf("record %s, want running with pid %v", b, second.Data["pid"])
	}
	o, err := h.m.Prompt(context.Background(), "api", "hello", false, nil)
	if err != nil || !o.Queued {
		t.Fatalf("the new agent has no queue: %+v %v", o, err)
	}
}

// TestStopKeepsAnotherProcessRecord: a process's stop clears the runtime
// record only when the record names that process: one that another live
// process took meanwhile (a proxy's, say) stays as it is (issue #26 item 2).
// On the old code the stop wrote "stopped" over it.
func TestStopKeepsAnotherProcessRecord(t *testing.T) {
	h := newHarness(t, nil)
	svc := service(t, "api")
	svc.Record = filepath.Join(t.TempDir(), "api.json")
	h.m.Sync([]Spec{svc})
	h.wait("process:start", "api")
	other := os.Getpid() // live, and not the agent's
	if err := runrecord.Update(svc.Record, map[string]any{"processOwnership": runrecord.OwnershipManaged, "status": "running", "pid": other}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.Stop(context.Background(), "api"); err != nil {
		t.Fatal(err)
	}
	h.wait("process:stop", "api")
	rec, err := runrecord.Read(svc.Record)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Status != "running" || rec.PID != other {
		b, _ := os.ReadFile(svc.Record)
		t.Fatalf("record %s, want it left running with pid %d", b, other)
	}
}
