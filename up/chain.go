package up

import (
	"context"
	"encoding/json"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/schedule"
)

// withChain returns ctx carrying the hook chain of a control request
// (docs/runtime.md, "Hook loops"): the hooks whose command ran `actctl
// prompt`. Empty raw: no hook caused the request.
func withChain(ctx context.Context, raw json.RawMessage) (context.Context, error) {
	if len(raw) == 0 {
		return ctx, nil
	}
	c, err := hooks.ParseChain(string(raw))
	if err != nil {
		return ctx, err
	}
	return hooks.WithChain(ctx, c), nil
}

// admit returns the hook chain that caused a prompt to agent (carried by
// ctx), or an error when the prompt is dropped as a hook loop.
func (m *Manager) admit(ctx context.Context, agent string) (hooks.Chain, error) {
	c := hooks.ChainOf(ctx)
	return c, m.opts.Loops.Admit(agent, c)
}

// chainOf is the hook chain of a task's events: its prompt's.
func chainOf(t schedule.Task) hooks.Chain {
	if r, ok := t.Data.(*taskRun); ok {
		return r.chain
	}
	return hooks.Chain{}
}
