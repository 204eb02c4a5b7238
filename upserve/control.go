package upserve

import (
	"context"
	"errors"
	"io"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
)

// handler is the control socket's: the manager (its upgrades too: the
// session leases), with start checked first, and the agents up holds on
// demand (demand.go) reached by the requests that talk to an agent.
type handler struct {
	*up.Manager
	s *Server
}

// Handle answers a control request as the manager does, except that
// `actctl start` and `restart` of a declared agent that does not offer
// start are refused with why and what it offers (docs/runtime.md,
// "actctl up"): up never holds such an agent. `status` adds the
// on-demand agents whose process runs (or crashed); a prompt or logs
// request for one goes to the manager that holds it on demand, and a
// stop is refused (its process stops when nothing holds it).
func (h handler) Handle(ctx context.Context, req control.Request, out *control.Stream) (any, error) {
	switch {
	case req.Op == control.OpStart || req.Op == control.OpRestart:
		if err := h.s.checkStart(req.Agent); err != nil {
			return nil, err
		}
	case req.Op == control.OpStatus:
		return append(h.Manager.Status(), h.s.demandStatus()...), nil
	case h.s.manager(req.Agent) != h.s.od:
	case req.Op == control.OpPrompt || req.Op == control.OpLogs:
		return h.s.od.Handle(ctx, req, out)
	case req.Op == control.OpStop:
		return nil, h.s.notOnDemand(req.Agent)
	}
	return h.Manager.Handle(ctx, req, out)
}

// Upgrade answers a lease request with the manager that holds the agent:
// a lease on an on-demand agent starts its process when none runs and
// holds it while the lease connection lasts (docs/runtime.md, "chat on
// an agent up runs").
func (h handler) Upgrade(ctx context.Context, req control.Request) (func(context.Context, io.Reader, io.Writer) error, error) {
	return h.s.manager(req.Agent).Upgrade(ctx, req)
}

// checkStart refuses agent when the last cycle's config declares it and
// it does not offer start; anything else is the manager's to answer.
func (s *Server) checkStart(agent string) error {
	cfg := s.cfg.Load()
	if cfg == nil {
		return nil
	}
	if _, ok := cfg.Agents[agent]; !ok {
		return nil
	}
	r, err := cfg.Resolve(agent)
	if err != nil || r.HeldByUp() {
		return nil
	}
	return errors.New(r.NotOffered(schema.InteractStart))
}
