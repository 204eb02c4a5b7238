package acpclient

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/internal/rpcpeer"
)

// The client reads the backend's stdout itself, one line at a time
// (docs/run.md, "Bounds"), and hands the connection (conn) what is its:
//   - notifications (session/update, extension notifications) are handled
//     right there, in order: while their observer is slow, nothing more is
//     read, the pipe fills and the agent waits (backpressure; no queue);
//   - requests are served while fewer than MaxPendingRequests (and
//     maxPendingBytes of them) await their answers; the excess is answered
//     at once with an error, written by the reader itself, so a flood of
//     requests costs the agent errors and never actctl's memory;
//   - answers go to the requests waiting for them;
//   - a message over MaxMessage bytes ends the connection, reported as
//     what it is.

// MaxMessage is the largest JSON-RPC message (one line, its newline
// included) the client reads: the ACP SDK's line limit.
const MaxMessage = 10 << 20

// MaxPendingRequests bounds the agent's requests the client handles at
// once (served, or their answers not yet written); maxPendingBytes bounds
// their size. A request beyond either is answered with an error at once.
const (
	MaxPendingRequests = 256
	maxPendingBytes    = 64 << 20
)

// errOversize ends the stream at a message over MaxMessage.
var errOversize = errors.New("a message over the size limit")

// inbound reads the backend's stdout (see above).
type inbound struct {
	c    *Client
	br   *bufio.Reader
	line []byte // the line being read
}

// inboundBuffer is the size of the reader of an agent's stdout;
// maxKeptLine the largest buffer of a line it keeps for the next one.
const (
	inboundBuffer = 4 << 10
	maxKeptLine   = 4 * inboundBuffer
)

func newInbound(c *Client, r io.Reader) *inbound {
	// A small buffer: next assembles a longer line from its fragments,
	// and an idle agent's reader holds no more than this (docs/runtime.md,
	// "Limits").
	return &inbound{c: c, br: bufio.NewReaderSize(r, inboundBuffer)}
}

// read reads the stream until it ends, and returns why: every line is
// routed, classified once, traced, filtered and dispatched; what is the
// connection's goes to k.
func (r *inbound) read(k *conn) error {
	for {
		line, err := r.next()
		if len(bytes.TrimSpace(line)) > 0 && r.c.route(line) {
			// Classified once; every reader of the line is given this.
			env := lineframe.Parse(line)
			r.c.opts.Trace.Line("agent"+rpcpeer.ToClient, line, &env)
			filtered := r.c.opts.Filter != nil && r.c.filtered(line, &env)
			if !filtered && r.c.dispatch(line, &env) {
				k.handle(line, &env)
			}
		}
		if err != nil {
			return err
		}
	}
}

// next reads one line (without its newline); a line over MaxMessage ends
// the stream with errOversize, after the client noted it.
func (r *inbound) next() ([]byte, error) {
	if cap(r.line) > maxKeptLine {
		r.line = nil // the buffer of a long message is not kept
	}
	r.line = r.line[:0]
	for {
		frag, err := r.br.ReadSlice('\n')
		if len(r.line)+len(frag) > MaxMessage {
			r.c.oversize()
			return nil, errOversize
		}
		r.line = append(r.line, frag...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return r.line, err
		}
		return bytes.TrimRight(r.line[:len(r.line)-1], "\r"), nil
	}
}

// dispatch shows a line to the observers, handles it if it is a
// notification, and reports whether the connection gets it (an answer, a
// request, $/cancel_request). env is the line's envelope (a null id is
// none).
func (c *Client) dispatch(line []byte, env *lineframe.Envelope) bool {
	if !c.received(line, env) {
		return false
	}
	method, ok := lineframe.Unquote(env.Method)
	noID := env.ID == nil || string(env.ID) == "null"
	if !ok || len(method) == 0 || !noID || string(method) == "$/cancel_request" {
		return true
	}
	c.notification(method, paramsOf(line, env))
	return false
}

// paramsOf is the line's params (nil when absent); it aliases the line.
func paramsOf(line []byte, env *lineframe.Envelope) json.RawMessage {
	if env.Params.Empty() {
		return nil
	}
	return line[env.Params.Start:env.Params.End]
}

// notification handles a notification where it was read: session/update
// by its session, an extension notification by its session's Extension;
// any other is dropped, as the ACP SDK drops what it has no handler for.
// params aliases the reader's buffer: only a copy is kept.
func (c *Client) notification(method []byte, params json.RawMessage) {
	switch {
	case string(method) == acp.ClientMethodSessionUpdate:
		var n acp.SessionNotification
		if json.Unmarshal(params, &n) != nil || n.Validate() != nil {
			return
		}
		_ = c.SessionUpdate(c.readCtx, n)
	case method[0] == '_':
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(params, &p)
		c.mu.Lock()
		s := c.sessions[p.SessionID]
		c.mu.Unlock()
		if s != nil && s.ext != nil {
			_, _ = s.ext(c.readCtx, string(method), bytes.Clone(params), true)
		}
	}
}

// pending counts the agent's requests admitted and not yet answered, by
// id (rpcpeer.Pending: an answer written, a lease's included, may carry
// the id re-encoded).
type pending struct {
	mu    sync.Mutex
	reqs  rpcpeer.Pending[inflight]
	bytes int
}

// inflight is one request of the agent's being served.
type inflight struct {
	size   int
	cancel context.CancelFunc // ends the context it is served with
}

// admit takes a request of size bytes in, served with a context that
// cancel ends, unless that would pass the bounds (one request is always
// admitted when none is in flight).
func (p *pending) admit(id []byte, method string, size int, cancel context.CancelFunc) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.reqs.Len()
	if n >= MaxPendingRequests || n > 0 && p.bytes+size > maxPendingBytes {
		return false
	}
	if p.reqs.Add(id, method, inflight{size, cancel}) {
		p.bytes += size
	}
	return true
}

// cancel ends the context of request id, in answer to the agent's
// $/cancel_request.
func (p *pending) cancel(id []byte) {
	p.mu.Lock()
	e, ok := p.reqs.Peek(id)
	p.mu.Unlock()
	if ok {
		e.Value.cancel()
	}
}

// done counts the answer to request id written.
func (p *pending) done(id []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e, ok := p.reqs.Take(id); ok {
		p.bytes -= e.Value.size
	}
}

// outbound is the writer the connection writes the backend's stdin
// through: every message (one whole message, newline included, per
// Write) goes to fn first, and an answer written ends its
// request's place among the pending ones. The reader's own answers to the
// excess are written through it too, one message at a time.
type outbound struct {
	mu      sync.Mutex
	w       io.Writer
	fn      func([]byte)
	pending *pending
	trace   *rpcpeer.Trace
}

func (o *outbound) Write(p []byte) (int, error) {
	o.fn(p)
	o.traced(p)
	o.mu.Lock()
	n, err := o.w.Write(p)
	o.mu.Unlock()
	if id, ok := answerID(p); ok {
		o.pending.done(id)
	}
	return n, err
}

// traced traces a message written (Options.Trace).
func (o *outbound) traced(p []byte) {
	if o.trace != nil {
		env := lineframe.Parse(bytes.TrimRight(p, "\n"))
		o.trace.Line("client"+rpcpeer.ToAgent, p, &env)
	}
}

// writeRaw writes a line of a lease's (Client.WriteRaw) whole, between
// the connection's messages.
func (o *outbound) writeRaw(line []byte) error {
	o.traced(line)
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := o.w.Write(line)
	return err
}

// writeBusy answers request id with the error of a request over the
// bound; it waits while the agent does not read (backpressure).
func (o *outbound) writeBusy(id json.RawMessage) {
	msg := rpcpeer.AppendError(nil, id, &acp.RequestError{Code: rpcpeer.CodeInternal,
		Message: fmt.Sprintf("actctl refuses the request: too many of this agent's requests are in flight (at most %d, of %d MiB in all); retry when earlier ones are answered",
			MaxPendingRequests, maxPendingBytes>>20)})
	o.mu.Lock()
	defer o.mu.Unlock()
	_, _ = o.w.Write(append(msg, '\n'))
}

// answerID is the id of an answer written (one whole message per Write);
// false for the client's own requests and notifications.
func answerID(p []byte) ([]byte, bool) {
	env := lineframe.Parse(p)
	return env.ID, env.Kind == lineframe.KindResponse
}
