package tasklog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/layout"
)

// PromptMax is how many characters of a task's prompt its summary keeps.
const PromptMax = 200

// Task is what a task log records of the task itself.
type Task struct {
	ID      uint64
	Kind    string // heartbeat, cron, prompt (schedule.Kind)
	Source  string // "heartbeat", "cron[0]", who prompted
	Prompt  string
	Started time.Time
}

// Summary is one line of actctl.log: how one task ended. Lines written
// before they held Started (up wrote the task's start as Time) read as
// the start and the end they meant (ParseSummary).
type Summary struct {
	Time       time.Time `json:"time"`    // when it ended, UTC
	Started    time.Time `json:"started"` // when it started, UTC
	Task       uint64    `json:"task"`
	Kind       string    `json:"kind"`
	Source     string    `json:"source"`
	StopReason string    `json:"stopReason"`
	DurationMs int64     `json:"durationMs"`
	Error      string    `json:"error,omitempty"`
	// Log is the task's file of messages, relative to the logs directory.
	Log string `json:"log"`
	// Prompt is the task's prompt, cut to its first PromptMax characters.
	Prompt string `json:"prompt"`
}

// Writer records one task: its messages while it runs, its summary when
// it ends.
type Writer struct {
	dir  string
	task Task
	name string // the file's name
	path string // the file

	mu  sync.Mutex
	f   *os.File // nil once finished
	err error    // the first failed message write
}

// Begin creates the file of task t in the logs directory dir (directories
// 0755, the file 0644; an existing file is an error, never appended to).
func Begin(dir string, t Task) (*Writer, error) {
	if t.Started.IsZero() {
		t.Started = time.Now()
	}
	name := fileName(t.Started, t.ID)
	f, err := create(filepath.Join(TasksDir(dir), name))
	if err != nil {
		return nil, fmt.Errorf("task log: %w", err)
	}
	return &Writer{dir: dir, task: t, name: name, path: f.Name(), f: f}, nil
}

// create creates the new file p (never through a link; its directories
// 0755, the file 0644; an existing file is an error).
func create(p string) (*os.File, error) {
	if err := layout.NoLinksIn(p); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
}

// Path is the task's (or the session's) file of messages.
func (w *Writer) Path() string { return w.path }

// Message appends one ACP message (a JSON-RPC line, without its newline)
// to the task's file. It may be called from several goroutines. A failed
// write is remembered and returned by Finish; the messages after it are
// dropped, as are those after Finish.
func (w *Writer) Message(line []byte) {
	line = bytes.TrimRight(line, "\r\n")
	buf := make([]byte, 0, len(line)+1)
	buf = append(append(buf, line...), '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil || w.err != nil {
		return
	}
	if _, err := w.f.Write(buf); err != nil {
		w.err = fmt.Errorf("task log %s: %w", w.Path(), err)
	}
}

// Finish closes the task's file and appends the summary s to actctl.log,
// with the task's id, kind, source, file and prompt filled in from the
// task. A zero s.Time (its end) is now, a zero s.Started the task's start; a zero s.DurationMs is the time since the
// task started. Its error reports a failed message write too; the summary
// is appended even then.
func (w *Writer) Finish(s Summary) error {
	w.mu.Lock()
	f, werr := w.f, w.err
	w.f = nil
	w.mu.Unlock()
	if f == nil {
		return fmt.Errorf("task log %s: finished twice", w.Path())
	}
	cerr := f.Close()
	if s.Time.IsZero() {
		s.Time = time.Now()
	}
	s.Time = s.Time.UTC()
	if s.Started.IsZero() {
		s.Started = w.task.Started
	}
	s.Started = s.Started.UTC()
	if s.DurationMs == 0 {
		s.DurationMs = s.Time.Sub(w.task.Started).Milliseconds()
	}
	s.Task, s.Kind, s.Source = w.task.ID, w.task.Kind, w.task.Source
	s.Log, s.Prompt = relLog(w.name), firstRunes(w.task.Prompt, PromptMax)
	return errors.Join(werr, cerr, appendSummary(w.dir, s))
}

// appendSummary appends s to actctl.log as one line in one write, with
// O_APPEND, so that the lines of concurrent writers never interleave.
func appendSummary(dir string, s Summary) error {
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return fmt.Errorf("task summary: %w", err)
	}
	p := SummaryPath(dir)
	// Never through a link (a checkout may bring one).
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND|layout.NoFollow, 0o644)
	if err != nil {
		return fmt.Errorf("task summary: %w", err)
	}
	_, werr := f.Write(line.Bytes())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("task summary %s: %w", p, werr)
	}
	return nil
}
