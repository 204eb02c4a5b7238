package up

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// faults arms panics at the lease path's fault points and records what
// up logs.
type faults struct {
	t     *testing.T
	mu    sync.Mutex
	armed string
	logs  []string
}

func injectFaults(t *testing.T, h *harness) *faults {
	f := &faults{t: t}
	h.m.leaseFault = func(where string) {
		f.mu.Lock()
		armed := f.armed == where
		f.mu.Unlock()
		if armed {
			panic("injected at " + where)
		}
	}
	h.m.opts.Logf = func(format string, args ...any) {
		t.Logf(format, args...)
		f.mu.Lock()
		f.logs = append(f.logs, fmt.Sprintf(format, args...))
		f.mu.Unlock()
	}
	return f
}

func (f *faults) arm(where string) {
	f.mu.Lock()
	f.armed = where
	f.mu.Unlock()
}

// logged reports whether a log line contains s.
func (f *faults) logged(s string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range f.logs {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestLeasePanic: a panic in the lease path, in a handler the ACP SDK
// runs for a client's request or in a callback of its session on the warm
// connection, ends that client's connection with the panic logged; up,
// the warm process, the session and other clients go on.
func TestLeasePanic(t *testing.T) {
	h := newHarness(t, nil)
	f := injectFaults(t, h)
	h.m.Sync([]Spec{service(t, "api")})
	pid := h.wait("process:start", "api").Data["pid"].(int)

	// In a request handler: the request fails, the connection ends.
	a := h.lease("api", "yes")
	sa := a.newSession(t, t.TempDir())
	f.arm("session lookup")
	if _, err := a.prompt(sa, "session"); err == nil { // the panic's error, or the disconnect, whichever comes first
		t.Fatal("prompt with a panic: no error")
	}
	<-a.conn.Done()
	if !f.logged("api: lease client: panic in session/prompt: injected at session lookup (its connection ends; up goes on)") {
		t.Errorf("the panic was not logged: %q", f.logs)
	}
	f.arm("")

	// Another client resumes the session on the same process.
	b := h.lease("api", "yes")
	if _, err := b.conn.ResumeSession(t.Context(), acp.ResumeSessionRequest{SessionId: sa, Cwd: t.TempDir()}); err != nil {
		t.Fatalf("resume after the panic: %v", err)
	}
	if r, err := b.prompt(sa, "session"); err != nil || r.StopReason != acp.StopReasonEndTurn || !strings.HasPrefix(b.said(sa), "session sess-"+strconv.Itoa(pid)+"-") {
		t.Fatalf("prompt after the panic: %+v %v, said %q", r, err, b.said(sa))
	}

	// In a callback of the session (its session/update): the owner's
	// connection ends (the turn goes on: its answer may get out first).
	f.arm("session callback")
	_, _ = b.prompt(sa, "session")
	<-b.conn.Done()
	if !f.logged("api: lease client: panic in a session/update: injected at session callback") {
		t.Errorf("the panic was not logged: %q", f.logs)
	}
	f.arm("")

	c := h.lease("api", "yes")
	sc := c.newSession(t, t.TempDir())
	if r, err := c.prompt(sc, "session"); err != nil || r.StopReason != acp.StopReasonEndTurn {
		t.Fatalf("a new client after the panics: %+v %v", r, err)
	}
	if st := h.m.Status()[0]; st.State != "running" || st.Pid != pid {
		t.Fatalf("status after the panics: %+v, want pid %d running", st, pid)
	}
}
