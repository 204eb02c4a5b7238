//go:build unix

package up

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/supervise"
)

// onDemand is a repo agent as up holds it: no process until a
// conversation asks for one.
func onDemand(t testing.TB, name string) Spec {
	s := service(t, name)
	s.Archetype, s.LaunchMode, s.Restart, s.OnDemand = "repo", "direct", "never", true
	s.LeaseTTL = 10 * time.Minute
	return s
}

// gone reports whether process pid has ended (it was reaped: no such
// process any more).
func gone(pid int) bool { return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) }

// conversationPid opens a conversation with agent and returns it and the
// pid of the process it started.
func conversationPid(t *testing.T, h *harness, agent string) (string, int) {
	t.Helper()
	id, err := h.m.NewConversation(context.Background(), agent)
	if err != nil {
		t.Fatal(err)
	}
	st, err := h.m.StatusOf(agent)
	if err != nil || st.State != supervise.Running || st.Pid == 0 {
		t.Fatalf("after a new conversation: %+v %v", st, err)
	}
	return id, st.Pid
}

// TestOnDemandConversation: an on-demand agent has no process until a
// conversation asks for one; its turns run in that session; the process
// goes on while another conversation holds it and ends when the last one
// is closed; a conversation idle past the lease TTL ends it too.
func TestOnDemandConversation(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{onDemand(t, "helper")})
	if st, err := h.m.StatusOf("helper"); err != nil || st.State != supervise.Created || st.Pid != 0 {
		t.Fatalf("before any conversation: %+v %v", st, err)
	}
	first, pid := conversationPid(t, h, "helper")
	h.wait("process:start", "helper")
	second, err := h.m.NewConversation(context.Background(), "helper")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.Say(context.Background(), "helper", first, "session"); err != nil {
		t.Fatal(err)
	}
	h.wait("prompt:after", "helper")
	if lines := h.promptLines(); len(lines) != 1 || lines[0][0] != first {
		t.Fatalf("prompts: %q, want one in session %s", lines, first)
	}
	if err := h.m.CloseConversation("helper", first); err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.Conversation("helper", first); err == nil {
		t.Error("a closed conversation is still listed")
	}
	if st, _ := h.m.StatusOf("helper"); st.Pid != pid || gone(pid) {
		t.Fatalf("closing one of two conversations: %+v", st)
	}
	if err := h.m.CloseConversation("helper", second); err != nil {
		t.Fatal(err)
	}
	h.wait("process:stop", "helper")
	if !gone(pid) {
		t.Fatalf("process %d left running after its last conversation closed", pid)
	}

	// Idle past the lease TTL: closed, and the process with it.
	_, pid = conversationPid(t, h, "helper")
	h.wait("process:start", "helper")
	h.clk.Advance(10 * time.Minute)
	h.wait("process:stop", "helper")
	if !gone(pid) {
		t.Fatalf("process %d left running after its conversation was idle past the TTL", pid)
	}
	if st, _ := h.m.StatusOf("helper"); st.State != supervise.Stopped {
		t.Errorf("state %s after the stop", st.State)
	}
}

// TestOnDemandShutdown: up's stop ends an on-demand agent's process held
// by a conversation.
func TestOnDemandShutdown(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{onDemand(t, "helper")})
	_, pid := conversationPid(t, h, "helper")
	h.m.Shutdown()
	if !gone(pid) {
		t.Fatalf("process %d left running after up's shutdown", pid)
	}
}

// TestOnDemandCrashed: a crash leaves an on-demand agent crashed (it is
// not restarted); the next conversation starts it again.
func TestOnDemandCrashed(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{onDemand(t, "helper")})
	_, pid := conversationPid(t, h, "helper")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	h.wait("process:crash", "helper")
	if st, _ := h.m.StatusOf("helper"); st.State != supervise.Crashed {
		t.Fatalf("after a crash: %+v", st)
	}
	if _, again := conversationPid(t, h, "helper"); again == pid {
		t.Fatalf("the same pid %d after a crash", pid)
	}
	if st, _ := h.m.StatusOf("helper"); st.Restarts != 0 {
		t.Errorf("restarted by policy: %+v", st)
	}
}

// TestOnDemandLease: a lease (`actctl chat`, `proxy --lease`) on an
// on-demand agent starts its process when none runs and holds it while
// the lease connection lasts; it shares the process a conversation
// holds; a lease client's session left idle does not hold it (the
// process stops with the last holder, as a cold chat's does). A prompt
// holds it for its turn.
func TestOnDemandLease(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{onDemand(t, "helper")})
	c := h.lease("helper", "yes")
	st, err := h.m.StatusOf("helper")
	if err != nil || st.State != supervise.Running || st.Pid == 0 {
		t.Fatalf("after a lease: %+v %v", st, err)
	}
	pid := st.Pid
	h.wait("process:start", "helper")
	sid := c.newSession(t, t.TempDir())
	if r, err := c.prompt(sid, "session"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("prompt on the lease: %+v %v", r, err)
	}
	conv, again := conversationPid(t, h, "helper")
	if again != pid {
		t.Fatalf("a conversation beside the lease runs on pid %d, want %d", again, pid)
	}
	c.close()
	if st, _ := h.m.StatusOf("helper"); st.Pid != pid || gone(pid) {
		t.Fatalf("the lease gone, the conversation open: %+v", st)
	}
	if err := h.m.CloseConversation("helper", conv); err != nil {
		t.Fatal(err)
	}
	if !gone(pid) {
		t.Fatalf("process %d left running for an idle lease session", pid)
	}

	c = h.lease("helper", "yes")
	pid = h.wait("process:start", "helper").Data["pid"].(int)
	c.newSession(t, t.TempDir())
	c.close()
	if !gone(pid) {
		t.Fatalf("a second lease's process %d left running after the lease", pid)
	}

	out, err := h.m.Prompt(context.Background(), "helper", "session", true, nil)
	if err != nil || out.Error != "" {
		t.Fatalf("prompt: %+v %v", out, err)
	}
	pid = h.wait("process:start", "helper").Data["pid"].(int)
	if st, _ = h.m.StatusOf("helper"); st.State != supervise.Stopped || !gone(pid) {
		t.Fatalf("after the prompt's turn: %+v, process %d", st, pid)
	}
}
