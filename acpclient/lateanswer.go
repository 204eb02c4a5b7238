package acpclient

import (
	"bytes"
	"encoding/json"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
)

// An agent may answer a turn and exit at once (a one-shot agent does).
// The ACP SDK's connection then had the answer and saw the end of the
// connection almost together, and a request waiting for its answer
// picked one of the two at random: the turn was reported "peer
// disconnected" although it ended. The client's own connection gives an
// answer read before the end first (conn.call); the wire log, kept from
// then as a second guard, keeps from what is written and read on the
// wire the last answer to each session's session/prompt, so that Prompt
// takes it when the request failed — once the session/update
// notifications read before it have been handled.
type wireLog struct {
	mu        sync.Mutex
	prompts   map[string]string     // id of a session/prompt in flight -> its session
	answers   map[string]lateAnswer // session -> the last answer to its prompt
	notesRead uint64                // session/update notifications read
	notesDone uint64                // and handled (SessionUpdate returned)
	changed   chan struct{}         // closed (and replaced) when notesDone grows
}

type lateAnswer struct {
	id     string
	result json.RawMessage
	notes  uint64 // notesRead when the answer was read
}

var (
	promptMethod = []byte(`"session/prompt"`)
	stopReason   = []byte(`"stopReason"`)
)

// wireMessage is what the wire log reads of a session/prompt it sends.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		SessionID string `json:"sessionId"`
	} `json:"params"`
}

// sent records a line the client writes; only session/prompt requests
// are decoded.
func (w *wireLog) sent(line []byte) {
	if !bytes.Contains(line, promptMethod) {
		return
	}
	var m wireMessage
	if json.Unmarshal(line, &m) != nil || m.Method != "session/prompt" || m.ID == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.prompts == nil {
		w.prompts = map[string]string{}
	}
	w.prompts[string(bytes.TrimSpace(m.ID))] = m.Params.SessionID
}

// read records a line read from the agent: a session/update notification
// is counted, an answer carrying a stop reason to a prompt in flight kept.
// It returns the session whose prompt the line answers (with a result or
// an error), "" for any other line: the answer goes to that session's
// observer, as its updates do.
func (w *wireLog) read(line []byte, env *lineframe.Envelope) (answered string) {
	update := env.ID == nil && env.MethodIs("session/update")
	reply := (env.Method == nil || string(env.Method) == `""`) && env.ID != nil && (!env.Result.Empty() || !env.Error.Empty())
	if !update && !reply {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case update:
		w.notesRead++
	case reply:
		id := string(bytes.TrimSpace(env.ID))
		sid, ok := w.prompts[id]
		if !ok {
			return ""
		}
		delete(w.prompts, id)
		if !env.Result.Empty() && bytes.Contains(line, stopReason) {
			if w.answers == nil {
				w.answers = map[string]lateAnswer{}
			}
			w.answers[sid] = lateAnswer{id: id, result: bytes.Clone(line[env.Result.Start:env.Result.End]), notes: w.notesRead}
		}
		return sid
	}
	return ""
}

// answering is the session whose prompt in flight the line answers, ""
// for any other line; unlike read, it changes nothing.
func (w *wireLog) answering(env *lineframe.Envelope) string {
	if env.ID == nil || (env.Method != nil && string(env.Method) != `""`) || env.Result.Empty() && env.Error.Empty() {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.prompts[string(bytes.TrimSpace(env.ID))]
}

// handled counts a session/update notification handled.
func (w *wireLog) handled() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.notesDone++
	if w.changed != nil {
		close(w.changed)
		w.changed = nil
	}
}

// answer returns the last answer read to session sid's prompt, once the
// notifications read before it are handled (bounded: a handler stuck
// past the SDK's own drain bound does not hold the turn); ok is false
// when none was read.
func (w *wireLog) answer(sid string) (acp.PromptResponse, bool) {
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	for late := false; ; {
		w.mu.Lock()
		a, ok := w.answers[sid]
		if !ok {
			w.mu.Unlock()
			return acp.PromptResponse{}, false
		}
		if late || w.notesDone >= a.notes {
			delete(w.answers, sid)
			w.mu.Unlock()
			var r acp.PromptResponse
			return r, json.Unmarshal(a.result, &r) == nil
		}
		if w.changed == nil {
			w.changed = make(chan struct{})
		}
		ch := w.changed
		w.mu.Unlock()
		select {
		case <-ch:
		case <-deadline.C:
			late = true
		}
	}
}

// forget drops the answer kept for sid: its turn ended normally.
func (w *wireLog) forget(sid string) {
	w.mu.Lock()
	delete(w.answers, sid)
	w.mu.Unlock()
}
