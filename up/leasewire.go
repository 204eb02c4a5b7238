package up

import (
	"bytes"
	"encoding/json"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/internal/rpcpeer"
)

// The lease relays JSON-RPC lines as they are (docs/runtime.md, "Session
// leases"): it reads only the envelope of a message to route it, and
// changes only the id of a client's request on its way to the agent (the
// warm connection carries up's own requests too).

// message is what the lease reads of a line.
type message struct {
	ID        json.RawMessage // nil: none (a notification)
	Method    string
	Params    json.RawMessage
	Result    json.RawMessage
	Error     json.RawMessage
	SessionID string // params.sessionId, if any
}

// parse reads the envelope of one JSON-RPC line with internal/lineframe's
// scanner (no decoding but of the method and the session id); ok is false
// for a line that is not a JSON object (or null), or whose method is not a
// string.
// Params, Result and Error alias line.
func parse(line []byte) (m message, ok bool) {
	env := lineframe.Parse(line)
	i := lineframe.SkipWS(line, 0)
	if !env.Valid || line[i] != '{' && line[i] != 'n' { // an object, or null (nothing)
		return m, false
	}
	method, ok := lineframe.Unquote(env.Method)
	if !ok {
		if lineframe.Member(line, lineframe.Span{Start: i, End: len(line)}, "method") != nil {
			return m, false // a method that is not a string
		}
		method = nil
	}
	m = message{ID: compact(env.ID), Method: string(method), Params: raw(line, env.Params), Result: raw(line, env.Result), Error: raw(line, env.Error)}
	if sid, ok := lineframe.Unquote(lineframe.Member(line, env.Params, "sessionId")); ok {
		m.SessionID = string(sid)
	}
	return m, true
}

// raw is the value at span s of line (nil when absent).
func raw(line []byte, s lineframe.Span) json.RawMessage {
	if s.Empty() {
		return nil
	}
	return line[s.Start:s.End]
}

func (m message) request() bool      { return m.Method != "" && m.ID != nil }
func (m message) notification() bool { return m.Method != "" && m.ID == nil }
func (m message) response() bool     { return m.Method == "" && m.ID != nil }

// compact is a JSON value without insignificant spaces (ids compare as
// bytes).
func compact(v json.RawMessage) json.RawMessage {
	if v == nil {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// response is a JSON-RPC answer to id, with result or, if e is set, e
// (rpcpeer's layout).
func response(id json.RawMessage, result any, e *acp.RequestError) []byte {
	if e != nil {
		return rpcpeer.AppendError(nil, id, e)
	}
	return rpcpeer.AppendResult(nil, id, result)
}

// maxQueued bounds what waits to be written to one lease client: a client
// that stops reading is disconnected instead of holding the warm agent's
// output (a variable for tests).
var maxQueued = 64 << 20

// outQueue is what waits to be written to a lease client, in order.
type outQueue struct {
	max   int // maxQueued when it was made
	mu    sync.Mutex
	lines [][]byte
	size  int
	over  bool
	wake  chan struct{}
}

func newOutQueue() *outQueue { return &outQueue{max: maxQueued, wake: make(chan struct{}, 1)} }

// push queues one line; false once the queue went over its bound.
func (q *outQueue) push(line []byte) bool {
	q.mu.Lock()
	if q.over || q.size+len(line) > q.max {
		q.over = true
		q.mu.Unlock()
		return false
	}
	q.lines = append(q.lines, line)
	q.size += len(line)
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// run writes the queued lines to w, each with its newline, until stop is
// closed or a write fails.
func (q *outQueue) run(w interface{ Write([]byte) (int, error) }, stop <-chan struct{}) error {
	for {
		q.mu.Lock()
		lines := q.lines
		q.lines = nil
		q.size = 0
		q.mu.Unlock()
		for _, l := range lines {
			if _, err := w.Write(append(l[:len(l):len(l)], '\n')); err != nil {
				return err
			}
		}
		select {
		case <-q.wake:
		case <-stop:
			return nil
		}
	}
}
