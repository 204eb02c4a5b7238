package control

import (
	"context"
	"errors"
	"net"
	"testing"
)

// TestShutdownCause: a handler still running when up stops sees the
// cause ErrShuttingDown, whichever of the stop's two effects reaches the
// connection first: the cancel of its context, or the read deadline that
// ends the wait for the client to go (that wait, woken first, used to
// cancel with no cause, and `restart` during up's SIGTERM said "context
// canceled" once in CI). Repeated, as each run is one draw of the order;
// the bad order is rare enough that this does not catch it every time:
// it guards the contract, the comment in serveConn says why it holds.
func TestShutdownCause(t *testing.T) {
	for i := range 300 {
		parent, stop := context.WithCancelCause(context.Background())
		server, client := net.Pipe()
		entered, cause := make(chan struct{}), make(chan error, 1)
		h := HandlerFunc(func(ctx context.Context, req Request, out *Stream) (any, error) {
			close(entered)
			<-ctx.Done()
			cause <- context.Cause(ctx)
			return nil, context.Cause(ctx)
		})
		served := make(chan struct{})
		go func() { serveConn(parent, server, h); close(served) }()
		answered := make(chan string, 1)
		go func() {
			f, _ := (&Client{conn: client}).Do(context.Background(), Request{Op: OpStatus}, nil)
			answered <- f.Error
		}()
		<-entered
		stop(ErrShuttingDown)
		if err := <-cause; !errors.Is(err, ErrShuttingDown) {
			t.Fatalf("run %d: the handler's cause is %v, want %v", i, err, ErrShuttingDown)
		}
		if msg := <-answered; msg != ErrShuttingDown.Error() {
			t.Fatalf("run %d: the client was answered %q", i, msg)
		}
		<-served
	}
}
