package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"sync"
	"time"
)

// maxRequest bounds a request line (a prompt may be long).
const maxRequest = 16 << 20

// shutdownWriteGrace is how long, once ServeUntilClosed's ctx has ended,
// a handler's last frames may take to reach its client before the
// connection is cut: a client that stops reading must not hold up's
// shutdown.
const shutdownWriteGrace = 5 * time.Second

// Handler answers requests. Its ctx ends when the client goes away or
// ServeUntilClosed's ctx ends. What it sends on out reaches the client as
// frames; result (JSON-encoded) and err make the final frame, err's exit
// status included (CodeError).
type Handler interface {
	Handle(ctx context.Context, req Request, out *Stream) (result any, err error)
}

// ErrShuttingDown is the cause handlers see when up stops, and the answer
// to requests that arrive while it stops (ServeUntilClosed).
var ErrShuttingDown = errors.New("actctl up is shutting down")

// ServeUntilClosed answers connections on ln, each in its own goroutine,
// until ln is closed. Once ctx ends (up stopping, with its agents still
// to stop) the handlers are cancelled with the cause ErrShuttingDown, and
// every request that arrives afterwards is answered with it; it returns
// once ln is closed and every handler has returned: nil then, or the
// error that stopped it accepting.
func ServeUntilClosed(parent context.Context, ln net.Listener, h Handler) error {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := context.AfterFunc(parent, func() { cancel(ErrShuttingDown) })
	defer stop()
	var wg sync.WaitGroup
	err := accept(ln, func(conn net.Conn) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ctx.Err() != nil {
				refuse(conn)
				return
			}
			serveConn(ctx, conn, h)
		}()
	})
	cancel(ErrShuttingDown)
	wg.Wait()
	return err
}

// refuse answers conn's request with ErrShuttingDown; a client that does
// not send one within shutdownWriteGrace is cut.
func refuse(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(shutdownWriteGrace))
	if _, err := readRequest(bufio.NewReader(conn)); err != nil {
		return
	}
	out := newStream(conn, func(error) {})
	out.shutdown(time.Now().Add(shutdownWriteGrace))
	out.finish(nil, fmt.Errorf("%w: request not taken", ErrShuttingDown))
}

// accept hands ln's connections to serve until ln is closed. It pauses
// and retries after another failure (out of descriptors).
func accept(ln net.Listener, serve func(net.Conn)) error {
	var delay time.Duration
	for {
		conn, err := ln.Accept()
		if err == nil {
			delay = 0
			serve(conn)
			continue
		}
		if errors.Is(err, net.ErrClosed) {
			return nil
		}
		delay = min(max(2*delay, 5*time.Millisecond), time.Second)
		time.Sleep(delay)
	}
}

// serveConn reads conn's request, runs the handler with a ctx that ends
// when the client closes its side or stops reading (ErrSlowClient), and
// writes the final frame.
func serveConn(parent context.Context, conn net.Conn, h Handler) {
	defer conn.Close()
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	out := newStream(conn, cancel)
	stop := context.AfterFunc(parent, func() {
		_ = conn.SetReadDeadline(time.Unix(1, 0))
		out.shutdown(time.Now().Add(shutdownWriteGrace))
	})
	defer stop()
	br := bufio.NewReader(conn)
	req, err := readRequest(br)
	if err == nil && !knownOps[req.Op] {
		err = fmt.Errorf("actctl up does not know the request %q (is it older than this actctl?)", req.Op)
	}
	if err != nil {
		out.finish(nil, err)
		return
	}
	if req.Op == OpLease {
		upgrade(ctx, req, h, out, br, conn)
		return
	}
	gone := make(chan struct{})
	go func() {
		defer close(gone)
		_, _ = io.Copy(io.Discard, br) // until the client closes (or we do)
		// The client went (no cause), or up stops: the read deadline
		// that ended the copy may come before parent's cancel reaches
		// ctx, and the handler must still see ErrShuttingDown.
		cancel(context.Cause(parent))
	}()
	result, err := handle(ctx, h, req, out)
	out.finish(result, err)
	conn.Close()
	<-gone
}

// handle runs the handler; a panic in it becomes the request's error
// (with its stack in the message), so one bad request never takes the
// whole actctl up down with the agents it holds.
func handle(ctx context.Context, h Handler, req Request, out *Stream) (result any, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, fmt.Errorf("actctl up failed on the %s request: panic: %v\n%s", req.Op, p, debug.Stack())
		}
	}()
	return h.Handle(ctx, req, out)
}

// Upgrader is a Handler that also takes requests whose answer turns the
// connection into a raw byte stream (OpLease): Upgrade either refuses the
// request (its error is the final frame) or returns the function that
// serves the stream once the final frame {"done":true} was written. ctx
// ends, and the stream's reads fail, when ServeUntilClosed stops.
type Upgrader interface {
	Upgrade(ctx context.Context, req Request) (func(ctx context.Context, r io.Reader, w io.Writer) error, error)
}

func upgrade(ctx context.Context, req Request, h Handler, out *Stream, br *bufio.Reader, conn net.Conn) {
	u, ok := h.(Upgrader)
	if !ok {
		out.finish(nil, fmt.Errorf("actctl up does not serve %q requests", req.Op))
		return
	}
	serve, err := u.Upgrade(ctx, req)
	out.finish(nil, err)
	if err != nil {
		return
	}
	out.release()
	_ = serve(ctx, br, conn)
}

// readRequest reads the request line.
func readRequest(br *bufio.Reader) (Request, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxRequest {
			return Request{}, fmt.Errorf("request longer than %d bytes", maxRequest)
		}
		if err == nil {
			break
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return Request{}, fmt.Errorf("read request: %w", err)
		}
	}
	var req Request
	if err := json.Unmarshal(line, &req); err != nil {
		return Request{}, fmt.Errorf("bad request: %w", err)
	}
	return req, nil
}
