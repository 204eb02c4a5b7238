package up

import (
	"bufio"
	"bytes"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/internal/rpcpeer"
)

// The session plugins on a lease (docs/plugins.md, "On the proxy"): each
// lease connection gets the agent's rpcpeer.Hooks (Spec.LeaseHooks), as
// `actctl proxy` runs them on its relay: the client's session/prompt
// before it is forwarded, the agent's session/update before the client
// gets it, and the answer to the prompt, which may be preceded by the
// whole message a plugin held or replaced by a plugin's failure. Without
// plugins the lines pass as they are.

// leaseHooks are lease connection lc's plugins (nil: none); their steps
// go to lc's message log, as a proxy session's do.
func (a *agent) leaseHooks(lc *leaseConn) *rpcpeer.Hooks {
	a.mu.Lock()
	f := a.spec.LeaseHooks
	a.mu.Unlock()
	if f == nil {
		return nil
	}
	return f(lc.logStep)
}

// pluginPrompt passes a client's request through the inbound chain: the
// line to forward, or false when the plugins answered it (a failure that
// fails the turn).
func (lc *leaseConn) pluginPrompt(line []byte, m message) ([]byte, bool) {
	if lc.hooks == nil || m.Method != acp.AgentMethodSessionPrompt {
		return line, true
	}
	env := lineframe.Parse(line)
	out, answer := lc.hooks.Inbound(line, &env)
	if answer != nil {
		lc.send(answer)
		return nil, false
	}
	return out, true
}

// sendUpdate sends the client a notification of the agent's through the
// outbound chain.
func (lc *leaseConn) sendUpdate(line []byte) {
	if lc.hooks != nil {
		env := lineframe.Parse(line)
		if lines, hooked := lc.hooks.Outbound(line, &env); hooked {
			for _, l := range lines {
				lc.send(l)
			}
			return
		}
	}
	lc.send(line)
}

// sendAnswer sends the client the agent's answer (with the client's id)
// to its request of method: a prompt's ends the turn (rpcpeer.Hooks.Ended).
func (lc *leaseConn) sendAnswer(line []byte, method string) {
	if lc.hooks != nil {
		env := lineframe.Parse(line)
		var before [][]byte
		before, line = lc.hooks.Ended(line, &env, method)
		for _, l := range before {
			lc.send(l)
		}
	}
	lc.send(line)
}

// read handles the client's lines from br until it ends; with plugins,
// through rpcpeer.Hooks.ReadAhead, so that a session/cancel reaches a
// prompt whose inbound chain is running.
func (lc *leaseConn) read(br *bufio.Reader) {
	next := func() ([]byte, error) {
		for {
			line, err := br.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				return bytes.TrimRight(line, "\r\n"), nil
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if lc.hooks != nil {
		_ = lc.hooks.ReadAhead(next, lc.handle, func() {})
		return
	}
	for {
		line, err := next()
		if err != nil {
			return
		}
		lc.handle(line)
	}
}
