package acpclient

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/actctl/actctl/internal/lineframe"
)

// wireLog keeps the session of each session/prompt in flight, from what
// the client writes, so that the answer read for it goes to that
// session's observer and ends its filter (received, filtered). An agent
// that answers a turn and exits at once ended the turn: the client's
// connection gives an answer read before the end of the stream first
// (conn.call; TestAnswerThenExit), where the ACP SDK's picked at random
// and this log used to keep the answer as a second guard.
type wireLog struct {
	mu      sync.Mutex
	prompts map[string]string // id of a session/prompt in flight -> its session
}

var promptMethod = []byte(`"session/prompt"`)

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

// read records a line read from the agent: it returns the session
// whose prompt in flight the line answers (with a result or an error),
// "" for any other line: the answer goes to that session's observer, as
// its updates do.
func (w *wireLog) read(env *lineframe.Envelope) (answered string) {
	if (env.Method != nil && string(env.Method) != `""`) || env.ID == nil || env.Result.Empty() && env.Error.Empty() {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	id := string(bytes.TrimSpace(env.ID))
	sid, ok := w.prompts[id]
	if ok {
		delete(w.prompts, id)
	}
	return sid
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
