package main

import (
	"context"
	"errors"
	"os"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
)

// startEvent is actctl:start: up's pid, the agents it runs, and its
// webhooks' address when it serves them (docs/runtime.md, "Events").
func (u *upRun) startEvent(specs []up.Spec) hooks.Event {
	agents := []string{}
	for _, s := range specs {
		agents = append(agents, s.Name)
	}
	data := map[string]any{"pid": os.Getpid(), "agents": agents}
	if u.webhooks != nil {
		data["webhooks"] = u.webhooks.ln.Addr().String()
	}
	return hooks.Event{Name: schema.EventActctlStart, Data: data}
}

// stopReason is actctl:stop's reason: the signal that stopped up, or
// the error that ended its loop.
func (u *upRun) stopReason(err error) string {
	if s := u.signalled.Load(); s != nil {
		return signalName(*s)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err.Error()
	}
	return ""
}
