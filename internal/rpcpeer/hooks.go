package rpcpeer

import (
	"bytes"

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
	// answers the request with it and forwards nothing. Neither (nil,
	// nil): the turn was cancelled while Prompt ran (Cancel), the relay
	// answers the request with the stop reason "cancelled" and forwards
	// nothing.
	Prompt func(m Message) ([]byte, *acp.RequestError)
	// Cancel is given the session of each session/cancel notification
	// of the client's as soon as it is read, ahead of the lines before
	// it (ReadAhead), while Prompt may be running for that session: it
	// returns whether it cancelled a Prompt in progress, which then
	// returns (nil, nil); the relay drops such a cancel (the agent never
	// saw the prompt).
	Cancel func(sessionID string) bool
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
	// Close, if set, is called once the relay ends (End): what the
	// sessions' plugins hold (their sub-agents) ends with it.
	Close func()
}

// End ends the hooks with their relay (Close).
func (h *Hooks) End() {
	if h != nil && h.Close != nil {
		h.Close()
	}
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
// line to forward, or answer the answer (a line) to give instead. Every
// line that is not a session/prompt request, and every line when there
// is no Prompt hook, comes back as it is.
func (h *Hooks) Inbound(line []byte, env *lineframe.Envelope) (out, answer []byte) {
	if h == nil || h.Prompt == nil || env.Kind != lineframe.KindRequest || !env.MethodIs(acp.AgentMethodSessionPrompt) {
		return line, nil
	}
	out, e := h.Prompt(message(line, env))
	switch {
	case e != nil:
		return nil, AppendError(nil, env.ID, e)
	case out == nil:
		return nil, AppendResult(nil, env.ID, acp.PromptResponse{StopReason: acp.StopReasonCancelled})
	}
	return out, nil
}

// cancelled reports whether line is a session/cancel that Cancel took
// (the relay drops it).
func (h *Hooks) cancelled(line []byte) bool {
	if h == nil || h.Cancel == nil || !bytes.Contains(line, []byte(acp.AgentMethodSessionCancel)) {
		return false
	}
	env := lineframe.Parse(line)
	if env.Kind != lineframe.KindNotification || !env.MethodIs(acp.AgentMethodSessionCancel) {
		return false
	}
	return h.Cancel(message(line, &env).SessionID)
}

// ReadAhead relays a client's lines with Hooks: handle is given each
// line read, in order, on the calling goroutine, while another goroutine
// reads ahead (up to aheadMax lines) and gives each session/cancel to
// Cancel first, so that a cancel reaches a prompt whose inbound chain is
// running instead of waiting behind it (docs/plugins.md, "On the
// proxy"); a cancel Cancel took is dropped. read's lines are copied;
// idle is called whenever no line waits. It returns read's error once
// handle has had every line before it.
func (h *Hooks) ReadAhead(read func() ([]byte, error), handle func([]byte), idle func()) error {
	type item struct {
		line []byte
		err  error
	}
	ch := make(chan item, aheadMax)
	go func() {
		for {
			line, err := read()
			if err != nil {
				ch <- item{err: err}
				return
			}
			if !h.cancelled(line) {
				ch <- item{line: bytes.Clone(line)}
			}
		}
	}()
	for {
		if len(ch) == 0 {
			idle()
		}
		it := <-ch
		if it.err != nil {
			return it.err
		}
		handle(it.line)
	}
}

// aheadMax bounds the lines ReadAhead reads ahead of their handling.
const aheadMax = 256

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
