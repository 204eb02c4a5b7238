package employee

import (
	"cmp"
	"context"
	"path/filepath"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/schedule"
	"github.com/actctl/actctl/tasklog"
)

// Outcome is the result of one task: what `actctl prompt` and `actctl
// task` print and exit with (docs/runtime.md).
type Outcome struct {
	Agent       string                `json:"agent"`
	Task        uint64                `json:"task"`
	Queued      bool                  `json:"queued,omitempty"` // --no-wait: queued, not waited for
	SessionID   string                `json:"sessionId,omitempty"`
	StopReason  string                `json:"stopReason,omitempty"`
	DurationMs  int64                 `json:"durationMs"`
	Permissions acpclient.Permissions `json:"permissions"`
	Error       string                `json:"error,omitempty"`
	// Log is the task's message log, relative to the agent's logs dir.
	Log string `json:"log,omitempty"`
}

// StopError is a turn that ended with a stop reason other than end_turn:
// a failed task (whose exit code, for a command, the reason decides).
type StopError struct{ Reason string }

func (e *StopError) Error() string { return "the turn ended: " + e.Reason }

// Turn is one task's turn as it is logged, by up (a turn on the warm
// process) and by `actctl task` (a turn of its own process): the task
// file gets every message, actctl.log one summary line (docs/runtime.md,
// "Task log").
type Turn struct {
	Agent   string
	LogsDir string
	Task    schedule.Task
	// Source is what the log records as the task's source (a prompt's:
	// who prompted).
	Source string
	Clock  clock.Clock
	// Logf reports what could not be logged.
	Logf func(format string, args ...any)
	// Writer, if set, receives the task file's writer once it is open
	// (nil when it could not be): the session's messages go there.
	Writer func(*tasklog.Writer)
	// Redact, if set, is applied to the prompt the log records (the
	// agent's redact plugins, docs/plugins.md).
	Redact func(string) string
	// Ended, if set, says how the turn ended, given its stop reason and
	// the prompt's error: nil for a task done (up's words for a turn it
	// cut short, docs/runtime.md). Unset: an error, or a *StopError for
	// a stop reason other than end_turn.
	Ended func(ctx context.Context, r acp.StopReason, err error) error
}

// Run runs prompt as the task's turn and logs it. A turn that does not
// end with end_turn is an error (task:failed).
func (t Turn) Run(ctx context.Context, prompt func(context.Context) (acpclient.Result, error)) (Outcome, acpclient.Result, error) {
	started := t.Clock.Now()
	task := t.Task
	if t.Redact != nil {
		task.Prompt = t.Redact(task.Prompt)
	}
	w, lerr := tasklog.Begin(t.LogsDir, tasklog.Task{ID: task.ID, Kind: string(task.Kind), Source: t.Source, Prompt: task.Prompt, Started: started})
	if lerr != nil {
		t.Logf("%s: task %d: %v (not logged)", t.Agent, task.ID, lerr)
	}
	if t.Writer != nil {
		t.Writer(w)
	}
	res, err := prompt(ctx)
	if t.Ended != nil {
		err = t.Ended(ctx, res.StopReason, err)
	} else if err == nil && res.StopReason != acp.StopReasonEndTurn {
		err = &StopError{Reason: string(res.StopReason)}
	}
	ended := t.Clock.Now()
	out := Outcome{Agent: t.Agent, Task: task.ID, SessionID: res.SessionID, StopReason: string(res.StopReason),
		DurationMs: ended.Sub(started).Milliseconds(), Permissions: res.Permissions}
	if err != nil {
		out.Error = err.Error()
	}
	if w != nil {
		out.Log = logRel(t.LogsDir, w.Path())
		if ferr := w.Finish(tasklog.Summary{Time: ended, Started: started, Task: task.ID, Kind: string(task.Kind), Source: t.Source,
			StopReason: out.StopReason, DurationMs: out.DurationMs, Error: out.Error, Prompt: task.Prompt}); ferr != nil {
			t.Logf("%s: task %d: %v", t.Agent, task.ID, ferr)
		}
	}
	return out, res, err
}

// EventData is the data of a task's or a tick's event (heartbeat:tick,
// cron:tick, task:done, task:failed; none for idle), as up and `actctl
// task` publish it.
func EventData(ev schedule.Event) map[string]any {
	if ev.Name == schedule.EventIdle {
		return nil
	}
	data := map[string]any{"task": ev.Task.ID, "kind": string(ev.Task.Kind)}
	if ev.Task.Source != "" {
		data["source"] = ev.Task.Source
	}
	if ev.Err != nil {
		data["error"] = ev.Err.Error()
	}
	if ev.Coalesced {
		data["coalesced"] = true
	}
	return data
}

// logRel is a task log's path relative to the logs dir, for messages.
func logRel(dir, path string) string {
	if r, err := filepath.Rel(dir, path); err == nil {
		return r
	}
	return path
}

// PluginStep is a session plugin's step as a task log records it.
func PluginStep(p acpclient.PluginStep) tasklog.PluginStep {
	return tasklog.PluginStep{Plugin: p.Plugin, Direction: p.Direction, DurationMs: p.Duration.Milliseconds(),
		InBytes: p.In, OutBytes: p.Out, Changed: p.Changed, Attempts: p.Attempts, Outcome: p.Outcome, Error: p.Error}
}

// LogDecision records in w, a turn's task file (nil: none), the
// permission decision e is (an Event with Decision set) or the session
// plugin's step (EventPlugin, docs/plugins.md); any other event is not
// the log's: its messages are.
func LogDecision(w *tasklog.Writer, e acpclient.Event) {
	if w != nil && e.Kind == acpclient.EventPlugin && e.Plugin != nil {
		w.Plugin(PluginStep(*e.Plugin))
		return
	}
	if w == nil || !e.Decision || e.ToolCall == nil {
		return
	}
	c := e.ToolCall
	w.Decision(tasklog.Decision{ToolCallID: c.ID, Title: c.Title, Kind: string(c.Kind), Decision: string(c.State),
		OptionID: c.OptionID, By: c.By, Rule: cmp.Or(c.Matched, string(c.Rule))})
}
