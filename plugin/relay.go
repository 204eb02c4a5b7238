package plugin

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/internal/rpcpeer"
)

// The plugins on a relay (`actctl proxy`, `proxy --lease`: docs/plugins.md,
// "On the proxy"): the relay carries raw lines, so the Set's Filter is
// given the prompt's blocks and the updates' params cut out of them, per
// session of the connection, through the relay's rpcpeer.Hooks.

// RelayOptions are what Hooks needs beyond the Set.
type RelayOptions struct {
	// Step, if set, is given every plugin step of the relay's sessions
	// (the proxy logs them: sizes, never the text).
	Step func(sessionID string, ps acpclient.PluginStep)
}

// Hooks are the Set's rpcpeer.Hooks for a relay (nil for a nil Set: the
// relay stays byte-identical). Each session of the relay gets its own
// Filter on the first line that names it; a session/prompt passes the
// inbound chain (a failure with onError "fail" answers it with an error
// naming the plugin), each session/update the outbound chain, and the
// answer to the prompt gives what plugins of stream "message" held, the
// whole message, before it (an outbound failure with "fail" replaces
// the answer with its error). A failure that passes shows the client one
// warning a turn, an agent message chunk of the session. ctx bounds the
// plugins' calls.
func (s *Set) Hooks(ctx context.Context, o RelayOptions) *rpcpeer.Hooks {
	if s == nil {
		return nil
	}
	r := &relayed{set: s, ctx: ctx, o: o, sessions: map[string]*relaySession{}, turns: map[string]string{}}
	return &rpcpeer.Hooks{Prompt: r.prompt, Cancel: r.cancel, Update: r.update, TurnEnd: r.turnEnd, Redact: s.RedactLine, Close: r.close}
}

// relayed is a relay's sessions and the turns in progress.
type relayed struct {
	set *Set
	ctx context.Context
	o   RelayOptions

	mu       sync.Mutex
	sessions map[string]*relaySession
	turns    map[string]string // a prompt's id key: its session
	closed   bool              // close: a session made after has its Filter closed
}

// relaySession is one session of the relay: its Filter and the warnings
// waiting to reach its client.
type relaySession struct {
	id string
	f  acpclient.Filter

	mu       sync.Mutex
	warnings [][]byte           // session/update lines
	stop     context.CancelFunc // the inbound chain's running (nil: none)
	stopped  bool               // the client cancelled it (cancel)
}

// session is sid's, made on its first line.
func (r *relayed) session(sid string) *relaySession {
	r.mu.Lock()
	defer r.mu.Unlock()
	rs := r.sessions[sid]
	if rs == nil {
		rs = &relaySession{id: sid}
		rs.f = r.set.Filter(func(e acpclient.Event) { r.step(rs, e) })
		r.sessions[sid] = rs
		if r.closed {
			closeFilter(rs.f)
		}
	}
	return rs
}

// closeFilter ends what f holds (its sub-agents).
func closeFilter(f acpclient.Filter) {
	if fc, ok := f.(acpclient.FilterCloser); ok {
		fc.Close()
	}
}

// close ends the relay's sessions' Filters (their sub-agents).
func (r *relayed) close() {
	r.mu.Lock()
	r.closed = true
	all := make([]*relaySession, 0, len(r.sessions))
	for _, rs := range r.sessions {
		all = append(all, rs)
	}
	r.mu.Unlock()
	for _, rs := range all {
		closeFilter(rs.f)
	}
}

// step shows one plugin step: to RelayOptions.Step, and a step that
// failed and passed its text on as a warning to the session's client
// (a failure that fails the turn is said by the turn's error).
func (r *relayed) step(rs *relaySession, e acpclient.Event) {
	if e.Kind != acpclient.EventPlugin || e.Plugin == nil {
		return
	}
	if r.o.Step != nil {
		r.o.Step(rs.id, *e.Plugin)
	}
	if e.Plugin.Outcome != "passed" {
		return
	}
	line := updateLine(rs.id, acp.UpdateAgentMessageText("actctl: warning: "+Warning(*e.Plugin)+"\n\n"))
	rs.mu.Lock()
	rs.warnings = append(rs.warnings, line)
	rs.mu.Unlock()
}

// Warning is what a session shows of a plugin's failed step
// (docs/plugins.md, "Bounds"): the text went on unchanged, or the turn
// fails.
func Warning(p acpclient.PluginStep) string {
	what := "the text went on unchanged"
	if p.Outcome == "failed" {
		what = "the turn fails"
	}
	return fmt.Sprintf("plugin %s (%s) failed, %s: %s", p.Plugin, p.Direction, what, p.Error)
}

// takeWarnings are the warnings waiting for the session's client.
func (rs *relaySession) takeWarnings() [][]byte {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	w := rs.warnings
	rs.warnings = nil
	return w
}

// prompt passes a session/prompt's blocks through the inbound chain.
func (r *relayed) prompt(m rpcpeer.Message) ([]byte, *acp.RequestError) {
	rs := r.session(m.SessionID)
	key, ok := lineframe.AppendIDKey(nil, m.Env.ID)
	if len(r.set.inbound) == 0 {
		rs.f.Prompt(r.ctx, nil) // the turn's budgets start
		r.begin(key, ok, m.SessionID)
		return m.Line, nil
	}
	vs, ve := promptSpan(m.Line, m.Env.Params)
	var blocks []acp.ContentBlock
	if vs < 0 || json.Unmarshal(m.Line[vs:ve], &blocks) != nil {
		return nil, rpcpeer.InvalidParams(acp.AgentMethodSessionPrompt, "params.prompt must be an array of content blocks")
	}
	ctx, done := rs.inbound(r.ctx)
	out, err := rs.f.Prompt(ctx, blocks)
	if done() {
		rs.takeWarnings() // of a chain cut short: the turn ends cancelled
		return nil, nil
	}
	if err != nil {
		return nil, &acp.RequestError{Code: rpcpeer.CodeInternal, Message: err.Error(), Data: failData(err)}
	}
	r.begin(key, ok, m.SessionID)
	enc := encode(out)
	line := make([]byte, 0, len(m.Line)-(ve-vs)+len(enc))
	return append(append(append(line, m.Line[:vs]...), enc...), m.Line[ve:]...), nil
}

// inbound starts the session's inbound chain in a context its client's
// session/cancel ends (cancel); done ends it and reports whether it was
// cancelled: then the prompt is answered "cancelled" and never
// forwarded (docs/plugins.md, "On the proxy").
func (rs *relaySession) inbound(parent context.Context) (ctx context.Context, done func() bool) {
	ctx, stop := context.WithCancel(parent)
	rs.mu.Lock()
	rs.stop, rs.stopped = stop, false
	rs.mu.Unlock()
	return ctx, func() bool {
		rs.mu.Lock()
		defer rs.mu.Unlock()
		rs.stop = nil
		stop()
		return rs.stopped
	}
}

// cancel ends the inbound chain running for session sid, if one is
// (rpcpeer.Hooks.Cancel).
func (r *relayed) cancel(sid string) bool {
	r.mu.Lock()
	rs := r.sessions[sid]
	r.mu.Unlock()
	if rs == nil {
		return false
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.stop == nil {
		return false
	}
	rs.stop()
	rs.stopped = true
	return true
}

// failData names the plugin that failed the turn.
func failData(err error) map[string]any {
	if fe, ok := err.(*FailError); ok {
		return map[string]any{"plugin": fe.Plugin, "direction": fe.Direction}
	}
	return nil
}

// promptSpan is where the value of params.prompt is in line (-1: none).
func promptSpan(line []byte, params lineframe.Span) (vs, ve int) {
	vs, ve = -1, -1
	if params.Empty() || line[params.Start] != '{' {
		return vs, ve
	}
	lineframe.ScanObject(line[:params.End], params.Start, func(k []byte, s, e int) {
		if string(k) == "prompt" {
			vs, ve = s, e
		}
	})
	return vs, ve
}

// begin records that the prompt of id key is sid's turn.
func (r *relayed) begin(key []byte, ok bool, sid string) {
	if !ok {
		return
	}
	r.mu.Lock()
	r.turns[string(key)] = sid
	r.mu.Unlock()
}

// update passes a session/update through the outbound chain; the
// session's waiting warnings go first.
func (r *relayed) update(m rpcpeer.Message) [][]byte {
	rs := r.session(m.SessionID)
	params := m.Line[m.Env.Params.Start:m.Env.Params.End]
	out := rs.f.Update(r.ctx, params)
	lines := rs.takeWarnings()
	for _, p := range out {
		if len(out) == 1 && string(p) == string(params) {
			lines = append(lines, m.Line) // unchanged: as it came
			break
		}
		lines = append(lines, notification(p))
	}
	return lines
}

// turnEnd gives, before the answer to a session's prompt, what its
// plugins held (the whole message) and its waiting warnings; a plugin
// that fails the turn answers the prompt with its error.
func (r *relayed) turnEnd(m rpcpeer.Message) ([][]byte, []byte) {
	key, ok := lineframe.AppendIDKey(nil, m.Env.ID)
	if !ok {
		return nil, nil
	}
	r.mu.Lock()
	sid, found := r.turns[string(key)]
	delete(r.turns, string(key))
	rs := r.sessions[sid]
	r.mu.Unlock()
	if !found || rs == nil {
		return nil, nil
	}
	held, err := rs.f.End(r.ctx)
	var lines [][]byte
	for _, p := range held {
		lines = append(lines, notification(p))
	}
	lines = append(rs.takeWarnings(), lines...)
	if err == nil || m.Env.IsError {
		return lines, nil
	}
	e := &acp.RequestError{Code: rpcpeer.CodeInternal, Message: err.Error(), Data: failData(err)}
	return lines, rpcpeer.AppendError(nil, m.Env.ID, e)
}

// notification is the session/update line of params.
func notification(params []byte) []byte {
	line := make([]byte, 0, len(params)+64)
	line = append(line, `{"jsonrpc":"2.0","method":"session/update","params":`...)
	return append(append(line, params...), '}')
}

// updateLine is the session/update line of u in session sid.
func updateLine(sid string, u acp.SessionUpdate) []byte {
	return notification(encode(acp.SessionNotification{SessionId: acp.SessionId(sid), Update: u}))
}
