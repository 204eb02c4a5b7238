package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// A client's frames wait in a queue of their own, written by a goroutine
// of their own (docs/runtime.md, "Control"): a client that stops reading
// never blocks who sends to it (an agent's read loop, shared by all its
// sessions). A client whose queue overflows, or whose write takes longer
// than writeTimeout, is disconnected and its request cancelled.
const (
	maxQueuedFrames = 1024
	maxQueuedBytes  = 32 << 20
	writeTimeout    = time.Minute
)

// ErrSlowClient is the cause of a request cancelled because its client
// stopped reading its frames.
var ErrSlowClient = errors.New("the client stopped reading its output")

// Stream is a handler's output to its client. It is safe for concurrent
// use, and Send never waits for the client.
type Stream struct {
	conn net.Conn
	// drop cancels the request when the client is disconnected.
	drop     func(error)
	dropOnce sync.Once

	mu      sync.Mutex
	wake    *sync.Cond
	queue   [][]byte
	bytes   int
	done    bool      // the final frame is queued
	err     error     // why the client was disconnected
	closeBy time.Time // set at shutdown: no write goes past it
	written chan struct{}
}

// newStream starts the writer of conn's frames; drop is called (once, not
// under the Stream's lock) when the client is disconnected.
func newStream(conn net.Conn, drop func(error)) *Stream {
	s := &Stream{conn: conn, drop: drop, written: make(chan struct{})}
	s.wake = sync.NewCond(&s.mu)
	go s.run()
	return s
}

// Send queues a frame of kind with v, JSON-encoded, as its data. It fails
// once the client has gone or the handler has returned.
func (s *Stream) Send(kind string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("control: encode %s frame: %w", kind, err)
	}
	return s.write(wire{Kind: kind, Data: data})
}

// finish queues the final frame and waits until it was written or the
// client disconnected.
func (s *Stream) finish(result any, err error) {
	_ = s.write(finalWire(result, err))
	<-s.written
}

// finalWire is the final frame of result and err.
func finalWire(result any, err error) wire {
	w := wire{Done: true}
	if result != nil {
		// A failed request may still have a result (a turn that ended
		// badly has its outcome).
		var merr error
		if w.Result, merr = json.Marshal(result); merr != nil {
			w.Result = nil
			if err == nil {
				err = fmt.Errorf("encode the result: %w", merr)
			}
		}
	}
	if err != nil {
		w.Error, w.Code = err.Error(), exitCode(err)
	}
	return w
}

func (s *Stream) write(w wire) error {
	line, err := json.Marshal(w)
	if err != nil {
		return fmt.Errorf("control: encode frame: %w", err)
	}
	line = append(line, '\n')
	overflowed := false
	s.mu.Lock()
	switch {
	case s.err != nil:
		err = s.err
	case s.done:
		err = errors.New("control: the request has been answered")
	case !w.Done && (len(s.queue) >= maxQueuedFrames || s.bytes+len(line) > maxQueuedBytes):
		err, overflowed = s.overflow(), true
	default:
		s.queue = append(s.queue, line)
		s.bytes += len(line)
		s.done = w.Done
		if w.Done && !s.closeBy.IsZero() {
			// The answer of a handler that outlived the shutdown's
			// grace (a turn cancelled, then killed at up's grace) still
			// gets its own to reach the client.
			s.closeBy = time.Now().Add(shutdownWriteGrace)
		}
		s.wake.Signal()
	}
	s.mu.Unlock()
	if overflowed {
		s.dropped(err)
	}
	return err
}

// overflow disconnects a client that stopped reading: its queued frames
// are dropped for a final frame telling it why, which it gets if it ever
// reads again (within writeTimeout). Called with s.mu held.
func (s *Stream) overflow() error {
	s.err = fmt.Errorf("%w: actctl up disconnected it after %d frames (%d bytes) waited for it", ErrSlowClient, len(s.queue), s.bytes)
	line, _ := json.Marshal(finalWire(nil, s.err))
	s.queue = [][]byte{append(line, '\n')}
	s.bytes = len(line) + 1
	s.done = true
	s.wake.Signal()
	return s.err
}

// shutdown bounds every write from now on to by.
func (s *Stream) shutdown(by time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeBy = by
	_ = s.conn.SetWriteDeadline(by)
}

// release gives conn's writes back to the caller once the final frame was
// written (a lease's byte stream): no deadline but shutdown's.
func (s *Stream) release() {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.conn.SetWriteDeadline(s.closeBy)
}

// run writes the queued frames until the final one, or until a write
// fails (the client gone, or not reading within writeTimeout).
func (s *Stream) run() {
	defer close(s.written)
	for {
		line, final := s.next()
		if _, err := s.conn.Write(line); err != nil {
			s.fail(fmt.Errorf("write to the client: %w", err))
			return
		}
		if final {
			return
		}
	}
}

// next waits for the next frame to write and sets its write's deadline.
func (s *Stream) next() (line []byte, final bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.queue) == 0 {
		s.wake.Wait()
	}
	line, s.queue = s.queue[0], s.queue[1:]
	s.bytes -= len(line)
	by := time.Now().Add(writeTimeout)
	if !s.closeBy.IsZero() && s.closeBy.Before(by) {
		by = s.closeBy
	}
	// Under the lock, so that shutdown's deadline is never undone.
	_ = s.conn.SetWriteDeadline(by)
	return line, s.done && len(s.queue) == 0
}

// fail disconnects the client after a failed write.
func (s *Stream) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.queue, s.bytes, s.done = nil, 0, true
	s.mu.Unlock()
	s.dropped(err)
}

// dropped calls drop the first time the client is disconnected.
func (s *Stream) dropped(err error) {
	s.dropOnce.Do(func() { s.drop(err) })
}
