package up

import (
	"fmt"
	"runtime/debug"

	acp "github.com/coder/acp-go-sdk"
)

// A panic in code the lease path runs for a client's line, on the warm
// connection's reader (routing the agent's lines) or in a goroutine of its
// own would take up down, and every agent with it: nothing up the stack
// recovers it. Each such entry point defers one of the guards below
// instead: the panic is logged with its stack, the request (if any) gets
// an internal error, and the connection of the client concerned ends
// (docs/runtime.md, "Session leases").

// guard recovers a panic in the handling of a line from lc (deferred by
// it, with the line's envelope): a request is answered with an internal
// error naming the panic, and the client's connection ends.
func (lc *leaseConn) guard(where string, m message) {
	p := recover()
	if p == nil {
		return
	}
	lc.failed(where, p, debug.Stack())
	if m.request() {
		lc.replyErr(m.ID, acp.NewInternalError(map[string]any{"error": fmt.Sprintf("actctl up failed on %s: panic: %v", where, p)}))
	}
}

// failed logs a panic that happened for lc and ends its connection.
func (lc *leaseConn) failed(where string, p any, stack []byte) {
	lc.a.m.opts.Logf("%s: lease client: panic in %s: %v (its connection ends; up goes on)\n%s", lc.a.name, where, p, stack)
	lc.end()
}

// guard recovers a panic in routing the agent's lines about l, or in
// setting l up (deferred by it, with its error, or nil): the owning
// client's connection ends; without an owner, it is logged.
func (l *leased) guard(where string, err *error) {
	p := recover()
	if p == nil {
		return
	}
	if err != nil {
		*err = fmt.Errorf("actctl up failed on %s: panic: %v", where, p)
	}
	l.mu.Lock()
	owner := l.owner
	l.mu.Unlock()
	if owner != nil {
		owner.failed(where, p, debug.Stack())
		return
	}
	l.a.m.opts.Logf("%s: an idle leased session: panic in %s: %v\n%s", l.a.name, where, p, debug.Stack())
}

// guardAgent recovers a panic in the lease path outside any one client's
// requests (serving a connection, an idle session's expiry): logged.
func (a *agent) guardAgent(where string) {
	if p := recover(); p != nil {
		a.m.opts.Logf("%s: lease: panic in %s: %v (up goes on)\n%s", a.name, where, p, debug.Stack())
	}
}

// fault is called at points of the lease path where tests inject a panic
// (Manager.leaseFault); it does nothing otherwise.
func (m *Manager) fault(where string) {
	if m.leaseFault != nil {
		m.leaseFault(where)
	}
}
