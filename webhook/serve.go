package webhook

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// maxHeaderBytes bounds a request's headers (a delivery's are a few KiB).
const maxHeaderBytes = 16 << 10

// Serve serves h on ln until ctx is done, with its worker (Run); it
// returns once the server has stopped and every accepted delivery was
// published. Slow clients are cut off: a request has Options.ReadTimeout
// to arrive (its headers half of it, at most 5 s); at most
// Options.MaxConns connections are served at once, the next ones wait to
// be accepted.
func Serve(ctx context.Context, ln net.Listener, h *Handler) error {
	mux := http.NewServeMux()
	mux.Handle(Prefix, h)
	mux.Handle("/", http.NotFoundHandler())
	read := h.opts.ReadTimeout
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: min(read/2, 5*time.Second), ReadTimeout: read,
		WriteTimeout: read, IdleTimeout: time.Minute, MaxHeaderBytes: maxHeaderBytes}
	stop := make(chan struct{})
	worked := make(chan struct{})
	go func() { defer close(worked); h.Run(stop) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(limitListener(ln, h.opts.MaxConns, h.onConn)) }()
	var err error
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = srv.Shutdown(sctx)
		cancel()
		_ = srv.Close()
		<-served
	case err = <-served:
	}
	close(stop)
	<-worked
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// limited is a listener that has at most cap(slots) connections open:
// Accept waits for one to close first.
type limited struct {
	net.Listener
	slots  chan struct{}
	closed chan struct{}
	once   sync.Once
	onConn func(n int) // see Handler.onConn
}

func limitListener(ln net.Listener, n int, onConn func(int)) *limited {
	return &limited{Listener: ln, slots: make(chan struct{}, n), closed: make(chan struct{}), onConn: onConn}
}

func (l *limited) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.closed:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	if l.onConn != nil {
		l.onConn(len(l.slots))
	}
	return &slotConn{Conn: c, free: sync.OnceFunc(func() { <-l.slots })}, nil
}

func (l *limited) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// slotConn gives its listener's slot back when closed.
type slotConn struct {
	net.Conn
	free func()
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.free()
	return err
}
