package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/internal/rpcpeer"
)

// A tool may not take the permission mode from the committed project file
// (claude-agent-acp drops acceptEdits and bypassPermissions from
// .claude/settings.json), so the proxy puts every session the backend
// opens in the preset's ACP mode itself, as actctl's client does for run,
// chat, up and leases (docs/run.md, "Session mode"): when the backend's
// answer to a client's session/new offers Options.Mode and the session is
// in another one, that answer is held, the proxy sends session/set_mode
// itself (answered to the proxy, never to the editor), and the client
// then gets the answer with the mode the session is in, followed by what
// the backend sent about the session meanwhile.

// modeWait bounds the wait for the backend's answer to the proxy's
// session/set_mode; the client's session/new is answered after it either
// way.
const modeWait = 60 * time.Second

// modeSetter holds the answers to session/new whose session is being put
// in the mode.
type modeSetter struct {
	r    *relay
	mode string

	mu     sync.Mutex
	next   uint64
	held   rpcpeer.Pending[*heldNew] // by the id of the set_mode request
	sids   map[string]*heldNew       // the same, by session id
	warned bool
}

// heldNew is an answer to session/new held until its session is in the
// mode.
type heldNew struct {
	id        []byte // of the set_mode request
	sid, from string
	resp      []byte   // the backend's answer
	lines     [][]byte // what it sent about the session meanwhile
	timer     *time.Timer
}

func newModeSetter(r *relay, mode string) *modeSetter {
	return &modeSetter{r: r, mode: mode, sids: map[string]*heldNew{}}
}

// sessionModes is what the proxy reads of an answer to session/new.
type sessionModes struct {
	SessionID string `json:"sessionId"`
	Modes     *struct {
		CurrentModeID  string `json:"currentModeId"`
		AvailableModes []struct {
			ID string `json:"id"`
		} `json:"availableModes"`
	} `json:"modes"`
}

// response looks at a response of the backend's (line, env) before it is
// relayed; true if the proxy keeps it: the answer to its own set_mode (the
// held answer is then released), or an answer to session/new it holds.
func (m *modeSetter) response(line []byte, env *lineframe.Envelope) bool {
	m.mu.Lock()
	h, ok := m.held.Peek(env.ID)
	m.mu.Unlock()
	if ok {
		why := ""
		if env.IsError {
			why = string(line[env.Error.Start:env.Error.End])
		}
		m.release(h.Value, why)
		return true
	}
	if env.IsError || !m.r.isNewSession(env.ID) {
		return false
	}
	var res sessionModes
	if json.Unmarshal(line[env.Result.Start:env.Result.End], &res) != nil || res.Modes == nil || res.SessionID == "" || res.Modes.CurrentModeID == m.mode {
		return false
	}
	offered := make([]string, len(res.Modes.AvailableModes))
	for i, o := range res.Modes.AvailableModes {
		offered[i] = o.ID
	}
	if !slices.Contains(offered, m.mode) {
		m.warn(fmt.Sprintf("the agent offers no session mode %q (it offers %s): its sessions run in its mode %q",
			m.mode, strings.Join(offered, ", "), res.Modes.CurrentModeID))
		return false
	}
	m.hold(bytes.Clone(line), res.SessionID, res.Modes.CurrentModeID)
	return true
}

// hold keeps the answer resp to session/new of session sid and asks the
// backend to put the session in the mode.
func (m *modeSetter) hold(resp []byte, sid, from string) {
	m.mu.Lock()
	m.next++
	id := fmt.Sprintf("actctl-proxy-set-mode-%d", m.next)
	h := &heldNew{id: rpcpeer.JSONString(id), sid: sid, from: from, resp: resp}
	m.held.Add(h.id, acp.AgentMethodSessionSetMode, h)
	m.sids[sid] = h
	h.timer = time.AfterFunc(modeWait, func() { m.release(h, fmt.Sprintf("no answer within %s", modeWait)) })
	m.mu.Unlock()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": acp.AgentMethodSessionSetMode,
		"params": acp.SetSessionModeRequest{SessionId: acp.SessionId(sid), ModeId: acp.SessionModeId(m.mode)}})
	// Not on the backend's reader: a write to a backend that does not
	// read must not stop the proxy reading it.
	go m.r.in.write(req, true)
}

// holds keeps a line of the backend's (a notification or request, line
// and env) that names a session whose answer is held; true if it did.
func (m *modeSetter) holds(line []byte, env *lineframe.Envelope) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.sids) == 0 {
		return false
	}
	sid, ok := lineframe.Unquote(lineframe.Member(line, env.Params, "sessionId"))
	if !ok {
		return false
	}
	h := m.sids[string(sid)]
	if h == nil {
		return false
	}
	h.lines = append(h.lines, bytes.Clone(line))
	return true
}

// release relays h's answer, with the mode unless why says the backend
// did not take it (then the session stays in its own mode, said once),
// and what was held with it. Nothing once the backend is gone: the exit
// path answers the client's session/new.
func (m *modeSetter) release(h *heldNew, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.held.Peek(h.id); !ok || e.Value != h {
		return
	}
	m.held.Take(h.id)
	delete(m.sids, h.sid)
	h.timer.Stop()
	if m.r.isDead.Load() {
		return
	}
	resp := h.resp
	if why == "" {
		resp = withCurrentMode(resp, m.mode)
	} else {
		m.warnLocked(fmt.Sprintf("the agent did not take session mode %q (%s): its sessions run in its mode %q", m.mode, why, h.from))
	}
	env := lineframe.Parse(h.resp)
	m.r.answered(&env)
	m.r.out.writeLine(resp, false)
	for _, l := range h.lines {
		m.r.out.writeLine(l, false)
	}
	m.r.out.flush()
}

// warn logs a warning about the mode, once per proxy.
func (m *modeSetter) warn(msg string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.warnLocked(msg)
}

func (m *modeSetter) warnLocked(msg string) {
	if !m.warned {
		m.warned = true
		m.r.log.printf("warning: %s", msg)
	}
}

// withCurrentMode is the answer resp with result.modes.currentModeId set
// to mode; every other byte stays.
func withCurrentMode(resp []byte, mode string) []byte {
	env := lineframe.Parse(resp)
	modes, ok := memberSpan(resp, env.Result, "modes")
	if !ok {
		return resp
	}
	cur, ok := memberSpan(resp, modes, "currentModeId")
	if !ok {
		return resp
	}
	out := make([]byte, 0, len(resp)+len(mode))
	out = append(out, resp[:cur.Start]...)
	out = append(out, rpcpeer.JSONString(mode)...)
	return append(out, resp[cur.End:]...)
}

// memberSpan is the value range of member key of the object at obj in b.
func memberSpan(b []byte, obj lineframe.Span, key string) (lineframe.Span, bool) {
	if obj.Empty() || b[obj.Start] != '{' {
		return lineframe.Span{}, false
	}
	var s lineframe.Span
	found := false
	lineframe.ScanObject(b[:obj.End], obj.Start, func(k []byte, vs, ve int) {
		if string(k) == key {
			s, found = lineframe.Span{Start: vs, End: ve}, true
		}
	})
	return s, found
}
