package control

import (
	"context"
	"net"
)

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, req Request, out *Stream) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, req Request, out *Stream) (any, error) {
	return f(ctx, req, out)
}

// Serve is ServeUntilClosed for the tests, closing ln when ctx ends: it
// answers connections on ln until ctx ends or ln is closed, then cancels
// the handlers still running and returns once every one has returned.
func Serve(ctx context.Context, ln net.Listener, h Handler) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	return ServeUntilClosed(ctx, ln, h)
}
