package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/internal/rpcpeer"
	"github.com/actctl/actctl/schema"
)

// Refused is the client of a proxy that cannot serve it at all.
type Refused struct {
	Stdin  io.Reader
	Stdout io.Writer
	// Stderr gets one line saying that Refuse waits for the client (nil:
	// discarded).
	Stderr io.Writer
	// Wait bounds the wait for initialize (0: DefaultInitWait; negative:
	// no wait).
	Wait time.Duration
}

// Refuse answers a client for which no backend can be started at all (the
// config does not load, the agent cannot be materialized): every request
// the client sends until it sends initialize, for up to c.Wait, gets a
// JSON-RPC error carrying msg, so the editor shows why instead of hanging.
// It returns once initialize was answered, at client EOF, when ctx ends
// or when the wait is over.
func Refuse(ctx context.Context, c Refused, msg string) {
	wait := initWait(c.Wait)
	if wait <= 0 {
		return
	}
	if c.Stderr != nil {
		fmt.Fprintf(c.Stderr, "actctl proxy: waiting up to %s for the client's initialize, to answer it with this error\n", wait)
	}
	stdin, stdout := c.Stdin, c.Stdout
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		lr := newLineReader(stdin, DefaultMaxMessageSize)
		for {
			line, err := lr.next()
			if len(line) > 0 {
				select {
				case lines <- append([]byte(nil), line...):
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	answer := &acp.RequestError{Code: rpcpeer.CodeInternal, Message: msg}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
			return
		case line, ok := <-lines:
			if !ok {
				return
			}
			env := lineframe.Parse(line)
			if env.Kind != lineframe.KindRequest {
				continue
			}
			if _, err := stdout.Write(append(rpcpeer.AppendError(nil, env.ID, answer), '\n')); err != nil {
				return
			}
			if env.MethodIs(acp.AgentMethodInitialize) {
				return
			}
		}
	}
}

// CheckServe refuses, before anything is materialized, an agent that does
// not offer proxy: an IDE-only backend (Cursor), a backend without an acp
// command, or an archetype that does not allow proxy. The message names
// what the agent supports instead.
func CheckServe(r *schema.Resolved) error {
	if r.Offer(schema.InteractProxy) {
		return nil
	}
	msg := r.NotOffered(schema.InteractProxy)
	if r.Offer(schema.InteractOpen) {
		msg += fmt.Sprintf(" (start its own UI with `actctl open %s`)", r.Name)
	}
	return errors.New(msg)
}
