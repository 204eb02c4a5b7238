package rpcpeer

import (
	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
)

// Hooks is the interception point of ACP session traffic in a relay, for
// session plugins: Prompt sees every session/prompt request a client sends
// before it reaches the agent, Update every session/update notification
// the agent sends before it reaches the client, and TurnEnd the agent's
// answer to a session/prompt (the end of the turn) before the client gets
// it. A nil *Hooks, or a nil func, passes every line on untouched, so a
// relay without plugins keeps its byte identity.
//
// The funcs run on the relay's reader of that direction, one line at a
// time and in order: while one runs, nothing more is read that way (the
// relay's backpressure; order is kept). Line and Env are valid only
// during the call.
type Hooks struct {
	// Prompt returns the request to forward in place of m.Line (m.Line
	// itself: unchanged; its id must stay), or an error: the relay then
	// answers the request with it and forwards nothing.
	Prompt func(m Message) ([]byte, *acp.RequestError)
	// Update returns the lines the client gets in place of m.Line: none
	// drops it, m.Line alone passes it on unchanged.
	Update func(m Message) [][]byte
	// TurnEnd returns lines the client gets before m.Line, the answer to
	// a session/prompt (a plugin that transforms a whole message sends it
	// here), and the answer to give in its place (nil: m.Line; a plugin
	// that fails the turn answers with its error). m.SessionID is empty
	// (an answer names no session); m.Env.ID is the id Prompt saw.
	TurnEnd func(m Message) (before [][]byte, answer []byte)
	// Redact, if set, is what a log of the relay records of a line it
	// relayed (a session's message log: the redact plugins applied to
	// every message, not only to prompts and updates).
	Redact func(line []byte) []byte
}

// Logged is what a log records of line (Redact; line itself without it).
func (h *Hooks) Logged(line []byte) []byte {
	if h == nil || h.Redact == nil {
		return line
	}
	return h.Redact(line)
}

// Message is a line handed to a hook.
type Message struct {
	Line      []byte             // one JSON-RPC message, as it came
	Env       lineframe.Envelope // Line's envelope (a copy: the relay's own does not escape to the heap)
	SessionID string             // params.sessionId ("" when absent)
}

// Inbound applies Prompt to a client's line of envelope env: out is the
// line to forward, or e the answer to give instead. Every line that is
// not a session/prompt request, and every line when there is no Prompt
// hook, comes back as it is.
func (h *Hooks) Inbound(line []byte, env *lineframe.Envelope) (out []byte, e *acp.RequestError) {
	if h == nil || h.Prompt == nil || env.Kind != lineframe.KindRequest || !env.MethodIs(acp.AgentMethodSessionPrompt) {
		return line, nil
	}
	return h.Prompt(message(line, env))
}

// Outbound applies Update to an agent's line of envelope env; hooked is
// false (the line passes on as it is) for every line that is not a
// session/update notification, and every line when there is no Update
// hook.
func (h *Hooks) Outbound(line []byte, env *lineframe.Envelope) (lines [][]byte, hooked bool) {
	if h == nil || h.Update == nil || env.Kind != lineframe.KindNotification || !env.MethodIs(acp.ClientMethodSessionUpdate) {
		return nil, false
	}
	return h.Update(message(line, env)), true
}

func message(line []byte, env *lineframe.Envelope) Message {
	sid, _ := lineframe.Unquote(lineframe.Member(line, env.Params, "sessionId"))
	return Message{Line: line, Env: *env, SessionID: string(sid)}
}

// Ended applies TurnEnd to an agent's answer of envelope env to a request
// of method (the relay's pending table knows it): the lines to send
// before the answer and the answer to send (line itself unless TurnEnd
// replaces it); for every other answer, and when there is no TurnEnd
// hook, none and line.
func (h *Hooks) Ended(line []byte, env *lineframe.Envelope, method string) (before [][]byte, answer []byte) {
	if h == nil || h.TurnEnd == nil || method != acp.AgentMethodSessionPrompt {
		return nil, line
	}
	before, answer = h.TurnEnd(message(line, env))
	if answer == nil {
		answer = line
	}
	return before, answer
}
