package upserve

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
func (s *Server) startEvent(specs []up.Spec) hooks.Event {
	agents := []string{}
	for _, sp := range specs {
		agents = append(agents, sp.Name)
	}
	data := map[string]any{"pid": os.Getpid(), "agents": agents}
	if s.webhooks != nil {
		data["webhooks"] = s.webhooks.ln.Addr().String()
	}
	return hooks.Event{Name: schema.EventActctlStart, Data: data}
}

// stopReason is actctl:stop's reason: the signal that stopped up (as
// Stopping said it), or the error that ended its loop.
func (s *Server) stopReason(err error) string {
	if r := s.reason.Load(); r != nil {
		return *r
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		return err.Error()
	}
	return ""
}
