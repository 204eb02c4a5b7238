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

// LogsResult is the result of a logs request: Missing when the agent has
// no task logged yet (and the request did not follow).
type LogsResult struct {
	Missing bool `json:"missing,omitempty"`
}

// Logs answers a logs request (docs/runtime.md, "Remote control"): each
// complete line of the agent's task log (actctl.log, or with req.Task
// that task's messages) is sent as a frame "line" whose data is the line
// as a JSON string; with req.Follow the lines appended later too, until
// the client goes away.
func (m *Manager) Logs(ctx context.Context, req control.Request, out *control.Stream) (LogsResult, error) {
	a, err := m.agent(req.Agent)
	if err != nil {
		return LogsResult{}, err
	}
	a.mu.Lock()
	dir := a.spec.LogsDir
	a.mu.Unlock()
	path := tasklog.SummaryPath(dir)
	if req.Task != 0 {
		if path, err = tasklog.TaskFile(dir, req.Task); err != nil {
			return LogsResult{}, fmt.Errorf("logs %s: %w", req.Agent, err)
		}
	}
	send := func(l []byte) { _ = out.Send("line", string(l)) }
	if req.Follow {
		return LogsResult{}, tasklog.Follow(ctx, path, 0, send)
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return LogsResult{Missing: true}, nil
	} else if err != nil {
		return LogsResult{}, fmt.Errorf("logs %s: %w", req.Agent, err)
	}
	for line := range bytes.Lines(data) {
		if l, ok := bytes.CutSuffix(line, []byte("\n")); ok {
			send(l)
		}
	}
	return LogsResult{}, nil
}
