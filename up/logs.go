package up

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/tasklog"
)

// Logs answers a logs request (docs/runtime.md, "Remote control"): each
// complete line of the agent's task log (actctl.log, or with req.Task
// that task's messages) is sent as a frame "line" whose data is the line
// as a JSON string; with req.Follow the lines appended later too, until
// the client goes away. When the file does not exist yet a frame
// "missing" comes first.
func (m *Manager) Logs(ctx context.Context, req control.Request, out *control.Stream) (any, error) {
	a, err := m.agent(req.Agent)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	dir := a.spec.LogsDir
	a.mu.Unlock()
	path := tasklog.SummaryPath(dir)
	if req.Task != 0 {
		if path, err = tasklog.TaskFile(dir, req.Task); err != nil {
			return nil, fmt.Errorf("logs %s: %w", req.Agent, err)
		}
	}
	send := func(l []byte) { _ = out.Send("line", string(l)) }
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		_ = out.Send("missing", nil)
	} else if err != nil {
		return nil, fmt.Errorf("logs %s: %w", req.Agent, err)
	}
	if req.Follow {
		return nil, tasklog.Follow(ctx, path, 0, send)
	}
	for line := range bytes.Lines(data) {
		if l, ok := bytes.CutSuffix(line, []byte("\n")); ok {
			send(l)
		}
	}
	return nil, nil
}
