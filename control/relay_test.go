package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"testing"
)

// pipeEnd is the client's end of a relay: it reads what the relay
// writes and writes what the relay reads.
type pipeEnd struct {
	io.Reader
	w *io.PipeWriter
}

func (p pipeEnd) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeEnd) Close() error                { return p.w.Close() }

// startRelay runs Relay for root on pipes and returns the client's end,
// the hello line it read and Relay's result.
func startRelay(t *testing.T, root string) (pipeEnd, RelayHello, <-chan error) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Relay(root, inR, outW)
		outW.Close()
		done <- err
	}()
	br := bufio.NewReader(outR)
	line, err := readLine(br, maxGreeting)
	if err != nil {
		t.Fatal(err)
	}
	var h RelayHello
	if err := json.Unmarshal(line, &h); err != nil {
		t.Fatalf("hello %q: %v", line, err)
	}
	return pipeEnd{Reader: br, w: inW}, h, done
}

// TestRelayRoundTrip: a request through the relay gets its frames and
// final frame; the relay ends when up closes the connection.
func TestRelayRoundTrip(t *testing.T) {
	root := shortRoot(t)
	serve(t, root, func(ctx context.Context, req Request, out *Stream) (any, error) {
		_ = out.Send("line", req.Agent)
		return "ok", nil
	})
	end, h, done := startRelay(t, root)
	if h != (RelayHello{Relay: relayName}) {
		t.Fatalf("hello %+v", h)
	}
	var frames []string
	f, err := (&Client{conn: end}).Do(context.Background(), Request{Op: OpStatus, Agent: "dev"}, func(fr Frame) { frames = append(frames, string(fr.Data)) })
	if err != nil || string(f.Result) != `"ok"` || len(frames) != 1 || frames[0] != `"dev"` {
		t.Fatalf("Do = %+v, %v; frames %v", f, err, frames)
	}
	if err := <-done; err != nil {
		t.Fatalf("Relay = %v", err)
	}
}

// TestRelayClientGone: the client's end closing (kubectl gone) closes
// the socket: up cancels the handler and the relay ends.
func TestRelayClientGone(t *testing.T) {
	root := shortRoot(t)
	started, cancelled := make(chan struct{}), make(chan struct{})
	serve(t, root, func(ctx context.Context, req Request, out *Stream) (any, error) {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	})
	end, _, done := startRelay(t, root)
	if _, err := end.Write([]byte(`{"op":"logs","follow":true}` + "\n")); err != nil {
		t.Fatal(err)
	}
	<-started
	end.Close()
	<-cancelled
	if err := <-done; err != nil {
		t.Fatalf("Relay = %v", err)
	}
}

// TestRelayNoUp: without up the hello says so, and Relay returns ErrNoUp.
func TestRelayNoUp(t *testing.T) {
	_, h, done := startRelay(t, shortRoot(t))
	if !h.NoUp || h.Error != ErrNoUp.Error() {
		t.Fatalf("hello %+v", h)
	}
	if err := <-done; !errors.Is(err, ErrNoUp) {
		t.Fatalf("Relay = %v", err)
	}
}
