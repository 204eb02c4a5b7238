package main

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

// upWebhooks is up's webhook listener (--webhooks ADDR; docs/runtime.md,
// "Webhooks"): a listener of its own, apart from the control socket.
type upWebhooks struct {
	ln   net.Listener
	h    *webhook.Handler
	done chan error
}

// listenWebhooks binds addr for cfg's webhooks before anything runs: no
// webhook declared, a secret's variable unset or an address taken is the
// command's error; an addr that is no HOST:PORT a usage error. An empty addr is no listener (nil).
func listenWebhooks(addr string, cfg *schema.Config, publish func(webhook.Delivery)) (*upWebhooks, error) {
	if addr == "" {
		return nil, nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return nil, usageError("up: --webhooks %q: want HOST:PORT (127.0.0.1:8787, or 0.0.0.0:8787 for other machines): %v", addr, err)
	}
	if len(cfg.Webhooks) == 0 {
		return nil, fmt.Errorf("up: --webhooks %s: actant.cue declares no webhooks (webhooks: NAME: {secretEnv: \"...\", signature: \"github\"})", addr)
	}
	eps, err := webhook.Endpoints(cfg.Webhooks, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("up: --webhooks: %w", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("up: --webhooks: %w", err)
	}
	return &upWebhooks{ln: ln, h: webhook.New(eps, webhook.Options{Publish: publish}), done: make(chan error, 1)}, nil
}

// serve serves until ctx is done (wait returns then).
func (w *upWebhooks) serve(ctx context.Context) {
	go func() { w.done <- webhook.Serve(ctx, w.ln, w.h) }()
}

// wait returns once the listener stopped and what it accepted was
// published; its error, if it failed.
func (w *upWebhooks) wait() error {
	if w == nil {
		return nil
	}
	return <-w.done
}

// set takes a config cycle's webhooks; a secret now missing keeps the
// webhooks as they were.
func (w *upWebhooks) set(cfg *schema.Config, warn func(string, ...any)) {
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
