package acpclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/internal/rpcpeer"
)

// conn is the client's side of the ACP connection: JSON-RPC 2.0 over the
// backend's stdin and stdout, with the ACP SDK's message types and its
// behaviour (error codes, $/cancel_request both ways), but not its
// transport. The SDK's connection read through a 1 MiB line buffer of
// its own and ran four goroutines, per connection; the client reads and
// classifies every line already (inbound), so conn takes the lines from
// it: one goroutine per connection, the reader, and none more while the
// agent is idle (docs/runtime.md, "Limits").
//
//   - The client's requests (Initialize, NewSession, Prompt, ...) are
//     written whole, one line each (outbound serializes them), under ids
//     1, 2, ...; the answer is matched by id (rpcpeer.Pending: an agent
//     that re-encodes an id still matches) and handed to the waiting
//     caller by the reader. A caller whose context ends first returns at
//     once and the agent is sent $/cancel_request; an answer read before
//     the stream ended is the caller's even if the end is seen first.
//   - The agent's requests are served each on a goroutine of its own (at
//     most MaxPendingRequests: see pending), with a context that ends
//     with the stream or the agent's $/cancel_request, and answered under
//     the id they came with, byte for byte.
//   - The agent's notifications are handled by the reader, in order
//     (stream.go), so an answer is never given before the notifications
//     read before it were handled: the SDK's barrier, with no queue.
type conn struct {
	c      *Client
	out    *outbound
	nextID atomic.Uint64

	ctx context.Context // done when the stream ended: the handlers' too
	end context.CancelCauseFunc

	mu    sync.Mutex
	calls rpcpeer.Pending[chan reply] // the client's requests awaiting their answers
}

// reply is the answer to one of the client's requests.
type reply struct {
	result json.RawMessage
	err    *acp.RequestError
}

// errDisconnected is the SDK's error for a request whose answer will not
// come (Client.failure tells why).
func errDisconnected() *acp.RequestError {
	return acp.NewInternalError(map[string]any{"error": "peer disconnected before response"})
}

// newConn is the connection of c writing to out; serve reads it.
func newConn(c *Client, out *outbound) *conn {
	ctx, end := context.WithCancelCause(context.Background())
	return &conn{c: c, out: out, ctx: ctx, end: end}
}

// serve reads the backend's stdout until it ends, then fails the
// requests still waiting for their answers (Done).
func (k *conn) serve(in *inbound) {
	err := in.read(k)
	k.end(err)
}

// Done is closed once the backend's stdout has ended.
func (k *conn) Done() <-chan struct{} { return k.ctx.Done() }

// handle takes a line the reader passes on (dispatch): an answer to one
// of the client's requests, the agent's request, or its
// $/cancel_request. What is none of these is dropped, as the SDK did.
func (k *conn) handle(line []byte, env *lineframe.Envelope) {
	method, _ := lineframe.Unquote(env.Method)
	noID := env.ID == nil || string(env.ID) == "null"
	switch {
	case len(method) == 0 && !noID:
		k.answered(line, env)
	case string(method) == "$/cancel_request" && noID:
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(paramsOf(line, env), &p) == nil {
			k.c.pending.cancel(p.RequestID)
		}
	case len(method) > 0 && !noID:
		k.request(string(method), line, env)
	}
}

// answered gives an answer to the request it answers, if one waits.
func (k *conn) answered(line []byte, env *lineframe.Envelope) {
	k.mu.Lock()
	e, ok := k.calls.Take(env.ID)
	k.mu.Unlock()
	if !ok {
		return
	}
	var r reply
	switch {
	case !env.Error.Empty() && string(line[env.Error.Start:env.Error.End]) != "null":
		r.err = new(acp.RequestError)
		if err := json.Unmarshal(line[env.Error.Start:env.Error.End], r.err); err != nil {
			r.err = acp.NewInternalError(map[string]any{"error": "an error answer that does not decode: " + err.Error()})
		}
	case !env.Result.Empty():
		r.result = bytes.Clone(line[env.Result.Start:env.Result.End])
	}
	e.Value <- r // buffered: never blocks the reader
}

// request serves the agent's request on a goroutine of its own, if the
// bounds admit it (else it is refused at once, by the reader).
func (k *conn) request(method string, line []byte, env *lineframe.Envelope) {
	ctx, cancel := context.WithCancel(k.ctx)
	if !k.c.pending.admit(env.ID, method, len(line), cancel) {
		cancel()
		k.out.writeBusy(env.ID)
		return
	}
	id, params := bytes.Clone(env.ID), bytes.Clone(paramsOf(line, env))
	go func() {
		defer cancel()
		result, rerr := serveRequest(ctx, guard{k.c}, method, params)
		var msg []byte
		if rerr != nil {
			msg = rpcpeer.AppendError(nil, id, rerr)
		} else {
			msg = rpcpeer.AppendResult(nil, id, result)
		}
		_, _ = k.out.Write(append(msg, '\n'))
	}()
}

// call sends request method with params and decodes the answer's
// result into a T.
func call[T any](ctx context.Context, k *conn, method string, params any) (T, error) {
	var res T
	raw, err := k.call(ctx, method, params)
	if err != nil {
		return res, err
	}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &res); err != nil {
			return res, acp.NewInternalError(map[string]any{"error": err.Error()})
		}
	}
	return res, nil
}

// call sends request method with params and waits for its answer's
// result (see conn). The errors are the SDK's: the agent's error answer,
// "request cancelled" (the context's cause), "peer disconnected".
func (k *conn) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := strconv.AppendUint(nil, k.nextID.Add(1), 10)
	msg, err := appendMessage(id, method, params)
	if err != nil {
		return nil, err
	}
	ch := make(chan reply, 1)
	k.mu.Lock()
	k.calls.Add(id, method, ch)
	k.mu.Unlock()
	if _, err := k.out.Write(msg); err != nil {
		k.forget(id)
		return nil, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	select {
	case r := <-ch:
		return r.unpack()
	case <-ctx.Done():
		if !k.forget(id) {
			return (<-ch).unpack() // read already: it is the caller's
		}
		if k.ctx.Err() != nil {
			return nil, errDisconnected()
		}
		go k.cancelRequest(id) // the write may block on an agent that does not read
		return nil, requestError(context.Cause(ctx))
	case <-k.ctx.Done():
		if !k.forget(id) {
			return (<-ch).unpack()
		}
		return nil, errDisconnected()
	}
}

func (r reply) unpack() (json.RawMessage, error) {
	if r.err != nil {
		return nil, r.err
	}
	return r.result, nil
}

// forget drops request id from those awaiting an answer; false if the
// reader took it (its answer is on the way).
func (k *conn) forget(id []byte) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	_, ok := k.calls.Take(id)
	return ok
}

// cancelRequest tells the agent that the client no longer waits for
// request id (the SDK's $/cancel_request; an agent that does not know it
// ignores it).
func (k *conn) cancelRequest(id []byte) {
	_ = k.notify(context.Background(), "$/cancel_request", struct {
		RequestID json.RawMessage `json:"requestId"`
	}{id})
}

// notify sends notification method with params.
func (k *conn) notify(ctx context.Context, method string, params any) error {
	if err := ctx.Err(); err != nil {
		return acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	msg, err := appendMessage(nil, method, params)
	if err != nil {
		return err
	}
	if _, err := k.out.Write(msg); err != nil {
		return acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	return nil
}

// appendMessage is the line of a request of raw id (nil: a
// notification): {"jsonrpc":"2.0","id":ID,"method":M,"params":P}, the
// SDK's layout, params omitted when nil.
func appendMessage(id []byte, method string, params any) ([]byte, error) {
	m, err := json.Marshal(method)
	if err != nil {
		return nil, err
	}
	msg := []byte(`{"jsonrpc":"2.0"`)
	if id != nil {
		msg = append(append(msg, `,"id":`...), id...)
	}
	msg = append(append(msg, `,"method":`...), m...)
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return nil, acp.NewInvalidParams(map[string]any{"error": err.Error()})
		}
		msg = append(append(msg, `,"params":`...), p...)
	}
	return append(msg, '}', '\n'), nil
}

// requestError is err as a JSON-RPC error, as the SDK makes it: an
// *acp.RequestError as it is, a cancellation "request cancelled", any
// other an internal error.
func requestError(err error) *acp.RequestError {
	var re *acp.RequestError
	switch {
	case errors.As(err, &re):
		return re
	case errors.Is(err, context.Canceled):
		return acp.NewRequestCancelled(map[string]any{"error": err.Error()})
	}
	return acp.NewInternalError(map[string]any{"error": err.Error()})
}
