package upserve

import (
	"context"
	"errors"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
)

// handler is the control socket's: the manager (its upgrades too: the
// session leases), with start checked first.
type handler struct {
	*up.Manager
	s *Server
}

// Handle answers a control request as the manager does, except that
// `actctl start` and `restart` of a declared agent that does not offer
// start are refused with why and what it offers (docs/runtime.md,
// "actctl up"): up never holds such an agent.
func (h handler) Handle(ctx context.Context, req control.Request, out *control.Stream) (any, error) {
	if req.Op == control.OpStart || req.Op == control.OpRestart {
		if err := h.s.checkStart(req.Agent); err != nil {
			return nil, err
		}
	}
	return h.Manager.Handle(ctx, req, out)
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
