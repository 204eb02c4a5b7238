package dashboard

import (
	"strings"
	"time"

	"github.com/actctl/actctl/tasklog"
)

// tasksUpdate is the live message "tasks" (docs/dashboard.md, "Live
// updates"): an agent's queue and next ticks as they are now and, after
// a task ended, its row of the task history.
type tasksUpdate struct {
	Name  string   `json:"name"`
	Queue []Queued `json:"queue"`
	Done  *taskRow `json:"done,omitempty"`
	// Ticks are an employee's next ticks, as its page shows them.
	Ticks []tick `json:"ticks,omitempty"`
}

// tick is one of an employee's next ticks: in the schedule's zone
// (stamp) and in RFC 3339 for the viewer's.
type tick struct {
	Zone string `json:"zone"`
	ISO  string `json:"iso"`
}

// taskRow is one line of an agent's task history, on the page and in
// a live "tasks" message alike.
type taskRow struct {
	Task       uint64      `json:"task"`
	Source     string      `json:"source"`
	Started    string      `json:"started"`    // in up's zone (stamp)
	StartedISO string      `json:"startedISO"` // RFC 3339
	Duration   string      `json:"duration"`
	StopReason string      `json:"stopReason"`
	Error      string      `json:"error,omitempty"`
	Perms      Permissions `json:"perms"`
	// Prompt is the task's prompt as its summary keeps it (its first
	// tasklog.PromptMax characters): the task's page shows it.
	Prompt string `json:"-"`
}

// rowOf is task t's row, its permission decisions read from its log.
func (s *Server) rowOf(name string, t tasklog.Summary) taskRow {
	row := summaryRow(t)
	if data, err := s.src.TaskLog(name, t.Task); err == nil {
		_, row.Perms = ReadLog(data)
	}
	return row
}

// summaryRow is task t's row without its permission decisions.
func summaryRow(t tasklog.Summary) taskRow {
	d := time.Duration(t.DurationMs) * time.Millisecond
	start := t.Time.Add(-d)
	return taskRow{Task: t.Task, Source: t.Source, Started: start.Local().Format(stamp), StartedISO: start.Format(time.RFC3339),
		Duration: d.String(), StopReason: t.StopReason, Error: t.Error, Prompt: t.Prompt}
}

// endsTask reports whether event name says that a task ended (its
// summary is then written: it is the agent's last task).
func endsTask(name string) bool {
	return name == "task:done" || name == "task:failed" || name == "prompt:after"
}

// tasksChanged sends agent a's queue, an employee's next ticks, and the
// row of its last task when event says a task ended, to the live pages
// (every event about a but its process's). Nothing is read while no page
// is open.
func (s *Server) tasksChanged(a Agent, event string) {
	if !s.live.listening() || strings.HasPrefix(event, "process:") {
		return
	}
	u := tasksUpdate{Name: a.Name, Queue: []Queued{}}
	if q, err := s.src.Queue(a.Name); err == nil && q != nil {
		u.Queue = q
	}
	if a.Archetype == "employee" {
		ts, _ := s.src.Ticks(a.Name)
		for _, t := range ts {
			u.Ticks = append(u.Ticks, tick{Zone: t.Format(stamp), ISO: t.Format(time.RFC3339)})
		}
	}
	if endsTask(event) && a.LastTask != nil {
		row := s.rowOf(a.Name, *a.LastTask)
		u.Done = &row
	}
	s.live.send(message{event: "tasks", data: mustJSON(u)})
}
