package upserve

import (
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/webhook"
)

// webhooks is up's webhook listener (--webhooks ADDR; docs/runtime.md,
// "Webhooks"): a listener of its own, apart from the control socket.
type webhooks struct {
	ln   net.Listener
	h    *webhook.Handler
	done chan error
}

// ListenWebhooks binds addr (HOST:PORT, as the caller checked) for cfg's
// webhooks before anything runs: no webhook declared, a secret's variable
// unset or an address taken is the error. An empty addr is no listener.
// Run serves it; Close closes it.
func (s *Server) ListenWebhooks(addr string, cfg *schema.Config) error {
	if addr == "" {
		return nil
	}
	if len(cfg.Webhooks) == 0 {
		return fmt.Errorf("up: --webhooks %s: actant.cue declares no webhooks (webhooks: NAME: {secretEnv: \"...\", signature: \"github\"})", addr)
	}
	eps, err := webhook.Endpoints(cfg.Webhooks, os.Getenv)
	if err != nil {
		return fmt.Errorf("up: --webhooks: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("up: --webhooks: %w", err)
	}
	s.webhooks = &webhooks{ln: ln, h: webhook.New(eps, webhook.Options{Publish: s.delivered}), done: make(chan error, 1)}
	return nil
}

// serve serves until ctx is done (wait returns then).
func (w *webhooks) serve(ctx context.Context) {
	go func() { w.done <- webhook.Serve(ctx, w.ln, w.h) }()
}

// wait returns once the listener stopped and what it accepted was
// published; its error, if it failed.
func (w *webhooks) wait() error {
	if w == nil {
		return nil
	}
	return <-w.done
}

// set takes a config cycle's webhooks; a secret now missing keeps the
// webhooks as they were.
func (w *webhooks) set(cfg *schema.Config, warn func(string, ...any)) {
	if w == nil {
		return
	}
	eps, err := webhook.Endpoints(cfg.Webhooks, os.Getenv)
	if err != nil {
		warn("webhooks: %v (the webhooks stay as they were)", err)
		return
	}
	w.h.Set(eps)
}

// webhookNames lists the webhooks cfg declares, for up's log.
func webhookNames(cfg *schema.Config) string {
	return strings.Join(slices.Sorted(maps.Keys(cfg.Webhooks)), ", ")
}

// webhookEvent is a delivery as the event webhook:NAME.
func webhookEvent(d webhook.Delivery) hooks.Event {
	return hooks.Event{Name: schema.EventWebhook + d.Webhook, Data: d.Data()}
}
