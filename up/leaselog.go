package up

import (
	"fmt"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	emp "github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/tasklog"
)

// A lease connection's messages are logged as a proxy session's are
// (docs/plugins.md, "What the logs record"): one file a connection in
// the agent's session logs (tasklog.BeginSession, "lease-N"), every line
// the client sent and got as it went, after the session plugins (a
// prompt after the inbound chain, an update after the outbound one) and
// redacted (rpcpeer.Hooks.Logged). It is up's own record of the lease:
// it holds what the client sees, never the agent's words before the
// chain.

// leaseLogs numbers the lease connections' logs of this process.
var leaseLogs atomic.Uint64

// openLog opens lc's message log; one that cannot be opened is logged
// and the connection goes on unlogged.
func (lc *leaseConn) openLog() {
	if lc.a.spec.LogsDir == "" {
		return
	}
	w, err := tasklog.BeginSession(lc.a.spec.LogsDir, lc.a.m.opts.Clock.Now(), fmt.Sprintf("lease-%d", leaseLogs.Add(1)))
	if err != nil {
		lc.a.m.opts.Logf("%s: lease client: %v (its messages are not logged)", lc.a.name, err)
		return
	}
	lc.msgs = w
}

// logLine records one line the client sent or got.
func (lc *leaseConn) logLine(line []byte) {
	if lc.msgs != nil {
		lc.msgs.Message(lc.hooks.Logged(line))
	}
}

// logStep records a session plugin's step (sizes, never the text).
func (lc *leaseConn) logStep(_ string, ps acpclient.PluginStep) {
	if lc.msgs != nil {
		lc.msgs.Plugin(emp.PluginStep(ps))
	}
}

// logIn records a line of the client's as up took it: a session/prompt
// once it passed the inbound chain (forward), every other line as it
// came.
func (lc *leaseConn) logIn(line []byte, m message) {
	if m.Method != acp.AgentMethodSessionPrompt || !m.request() {
		lc.logLine(line)
	}
}

// closeLog closes lc's message log.
func (lc *leaseConn) closeLog() {
	if lc.msgs == nil {
		return
	}
	if err := lc.msgs.Close(); err != nil {
		lc.a.m.opts.Logf("%s: lease client: %v", lc.a.name, err)
	}
}
