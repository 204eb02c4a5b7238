package up

import (
	"context"
	"errors"
	"fmt"

	"github.com/actctl/actctl/control"
)

// Handle answers one control request (docs/runtime.md, "Control"): the
// Manager is the control socket's handler.
func (m *Manager) Handle(ctx context.Context, req control.Request, out *control.Stream) (any, error) {
	switch req.Op {
	case control.OpStatus:
		return m.Status(), nil
	case control.OpStart:
		return m.Start(ctx, req.Agent)
	case control.OpStop:
		return m.Stop(ctx, req.Agent)
	case control.OpRestart:
		return m.Restart(ctx, req.Agent)
	case control.OpCanvas:
		return nil, m.SetCanvas(req.Agent, req.Text)
	case control.OpPrompt:
		ctx, err := withChain(ctx, req.Chain)
		if err != nil {
			return nil, err
		}
		sink := func(kind string, v any) { _ = out.Send(kind, v) }
		source := req.Source
		if source == "" {
			source = SourceCLI
		}
		out, err := m.PromptFrom(ctx, source, req.Agent, req.Text, req.Wait, sink)
		if errors.Is(err, control.ErrSlowClient) {
			m.opts.Logf("%s: task %d cancelled: %v", req.Agent, out.Task, err)
		}
		return out, err
	case control.OpLogs:
		return m.Logs(ctx, req, out)
	case control.OpSubscribe, control.OpUnsubscribe, control.OpHooks:
		return m.handleSubscription(req)
	}
	return nil, fmt.Errorf("actctl up does not know the request %q", req.Op)
}
