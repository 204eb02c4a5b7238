package control

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestStreamNeverBlocks: Send never waits for a client that does not read
// (net.Pipe has no buffer: the first write blocks until read); once
// maxQueuedFrames wait, the client is dropped with ErrSlowClient, every
// later Send fails at once, and the client, if it reads again, gets the
// frame the writer had in flight (if any) and a final frame saying why.
func TestStreamNeverBlocks(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	dropped := make(chan error, 1)
	s := newStream(server, func(err error) { dropped <- err })
	var overflow error
	for i := 0; i < maxQueuedFrames+2 && overflow == nil; i++ {
		overflow = s.Send("message", i)
	}
	if !errors.Is(overflow, ErrSlowClient) {
		t.Fatalf("Send after %d frames: %v, want ErrSlowClient", maxQueuedFrames+2, overflow)
	}
	if err := <-dropped; !errors.Is(err, ErrSlowClient) {
		t.Fatalf("dropped with %v", err)
	}
	if err := s.Send("message", "more"); !errors.Is(err, ErrSlowClient) {
		t.Fatalf("Send after the drop: %v", err)
	}
	frames := make(chan []wire, 1)
	go func() { frames <- readFrames(client) }()
	s.finish("result", nil) // the handler returns: no second final frame
	server.Close()
	got := <-frames
	// The writer may or may not have taken the first frame before the
	// queue overflowed: that one, if in flight, arrives; the rest are
	// dropped, and the final frame always comes.
	if len(got) < 1 || len(got) > 2 || len(got) == 2 && (got[0].Done || string(got[0].Data) != "0") {
		t.Fatalf("the client read %d frames, want the first one if it was in flight, then the final one: %+v", len(got), got)
	}
	last := got[len(got)-1]
	if !last.Done || !strings.Contains(last.Error, "stopped reading") || last.Result != nil {
		t.Fatalf("final frame %+v, want done with why the client was dropped", last)
	}
}

// TestStreamBytesBound: a few large frames overflow the queue as many
// small ones do.
func TestStreamBytesBound(t *testing.T) {
	server, client := net.Pipe()
	defer client.Close()
	defer server.Close()
	dropped := make(chan error, 1)
	s := newStream(server, func(err error) { dropped <- err })
	big := strings.Repeat("x", 1<<20)
	var err error
	for i := 0; i < maxQueuedBytes>>20+2 && err == nil; i++ {
		err = s.Send("message", big)
	}
	if !errors.Is(err, ErrSlowClient) || !errors.Is(<-dropped, ErrSlowClient) {
		t.Fatalf("Send of %d MiB to a client that does not read: %v", maxQueuedBytes>>20+2, err)
	}
}

// TestStreamWriteFails: a client gone, or past shutdown's deadline, is
// dropped with the write's error; the request answered normally is not.
func TestStreamWriteFails(t *testing.T) {
	t.Run("gone", func(t *testing.T) {
		server, client := net.Pipe()
		defer server.Close()
		dropped := make(chan error, 1)
		s := newStream(server, func(err error) { dropped <- err })
		client.Close()
		_ = s.Send("message", 1)
		if err := <-dropped; err == nil || !strings.Contains(err.Error(), "write to the client") {
			t.Fatalf("dropped with %v", err)
		}
		if err := s.Send("message", 2); err == nil {
			t.Fatal("Send to a client gone succeeded")
		}
		s.finish(nil, nil)
	})
	t.Run("shutdown", func(t *testing.T) {
		server, client := net.Pipe()
		defer server.Close()
		defer client.Close()
		dropped := make(chan error, 1)
		s := newStream(server, func(err error) { dropped <- err })
		_ = s.Send("message", 1)
		s.shutdown(time.Unix(1, 0))
		if err := <-dropped; !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("dropped with %v, want the shutdown's deadline", err)
		}
		s.finish(nil, nil)
	})
	t.Run("answered", func(t *testing.T) {
		server, client := net.Pipe()
		defer client.Close()
		s := newStream(server, func(err error) { t.Errorf("dropped: %v", err) })
		frames := make(chan []wire, 1)
		go func() { frames <- readFrames(client) }()
		_ = s.Send("message", 1)
		s.finish("ok", nil)
		server.Close()
		if got := <-frames; len(got) != 2 || !got[1].Done || string(got[1].Result) != `"ok"` {
			t.Fatalf("frames %+v", got)
		}
	})
}

// readFrames reads r's frames until it ends.
func readFrames(r io.Reader) []wire {
	var out []wire
	dec := json.NewDecoder(r)
	for {
		var w wire
		if dec.Decode(&w) != nil {
			return out
		}
		out = append(out, w)
	}
}
