package upserve

import (
	"context"
	"errors"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/schema"
)

// Handle answers a control request as the manager does, except that
// `actctl start` and `restart` of a declared agent that does not offer
// start are refused with why and what it offers (docs/runtime.md,
// "actctl up"): up never holds such an agent.
func (s *Server) Handle(ctx context.Context, req control.Request, out *control.Stream) (any, error) {
	if req.Op == control.OpStart || req.Op == control.OpRestart {
		if err := s.checkStart(req.Agent); err != nil {
			return nil, err
		}
	}
	return s.m.Handle(ctx, req, out)
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
