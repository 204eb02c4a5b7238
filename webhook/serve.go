package webhook

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// Serve serves h on ln until ctx is done, with its worker (Run); it
// returns once the server has stopped and every accepted delivery was
// published. Slow clients are cut off: a request has 10 s to arrive.
func Serve(ctx context.Context, ln net.Listener, h *Handler) error {
	mux := http.NewServeMux()
	mux.Handle(Prefix, h)
	mux.Handle("/", http.NotFoundHandler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	stop := make(chan struct{})
	worked := make(chan struct{})
	go func() { defer close(worked); h.Run(stop) }()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
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
