// Package tasklog keeps the record of the tasks an agent runs under
// `actctl up` (docs/runtime.md, "Task log"): one file per task holding
// every ACP message received during it, exactly the JSON-RPC lines, and
// one summary line per task in actctl.log. `up` writes them through a
// Writer (Begin, Message, Finish) and numbers its tasks after LastID;
// `actctl logs` reads them with Summaries and TaskFile and follows
// actctl.log with Follow (the files themselves, not up: `logs -f` asks up
// only whether it runs); `describe` shows the last summaries; pruning an
// agent removes them (Remove). The package is the one place that names
// these files, so that the writer and the readers agree. The sessions
// actctl relays (a proxy's, a lease's) are not tasks: their messages go
// to session logs beside the task files (BeginSession, session.go).
package tasklog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/model"
)

// stampLayout is the UTC start time at the head of a task file's name.
const stampLayout = "20060102T150405Z"

// Dir is the directory holding r's task logs: the instance's logs/ (beside
// its proxy.log), or .actant/logs/<name>/ of a project agent's workspace
// (beside its proxy log .actant/logs/<name>.log, out of the user's tree).
// A project agent whose name ends in ".log" keeps them in
// .actant/logs/_<name>/ instead: .actant/logs/<name> is the proxy log of
// the agent named without that suffix. No agent name starts with "_", so
// that directory is nobody's proxy log and no other agent's task logs.
func Dir(r *model.Resolved) string {
	if r.Archetype.Workspace == model.WorkspaceInstance {
		return filepath.Join(r.Dir, layout.Logs)
	}
	name := r.Name
	if strings.HasSuffix(name, proxyLogExt) {
		name = "_" + name
	}
	return layout.Path(r.Dir, layout.Logs, name)
}

// proxyLogExt ends a project agent's proxy log name (runrecord.LogPath).
const proxyLogExt = ".log"

// SummaryPath is the summary file of the logs directory dir.
func SummaryPath(dir string) string { return filepath.Join(dir, layout.TaskSummaries) }

// TasksDir is the directory of task files of the logs directory dir.
func TasksDir(dir string) string { return filepath.Join(dir, layout.Tasks) }

// fileName is the name of the file of task id started at start.
func fileName(start time.Time, id uint64) string {
	return start.UTC().Format(stampLayout) + "-" + strconv.FormatUint(id, 10) + ".jsonl"
}

// parseName is the task id of a task file name; ok is false for any
// other name.
func parseName(name string) (id uint64, ok bool) {
	base, found := strings.CutSuffix(name, ".jsonl")
	stamp, num, cut := strings.Cut(base, "-")
	if !found || !cut {
		return 0, false
	}
	if _, err := time.Parse(stampLayout, stamp); err != nil {
		return 0, false
	}
	id, err := strconv.ParseUint(num, 10, 64)
	if err != nil || strconv.FormatUint(id, 10) != num {
		return 0, false
	}
	return id, true
}

// relLog is the Log field of a summary: the task file relative to the
// logs directory, slash-separated.
func relLog(name string) string { return layout.Tasks + "/" + name }

// firstRunes is s cut to its first n characters.
func firstRunes(s string, n int) string {
	i := 0
	for k := range s {
		if i == n {
			return s[:k]
		}
		i++
	}
	return s
}

// errNoTask is TaskFile's error: id is not among the ids logged in dir.
func errNoTask(dir string, id uint64, ids []uint64) error {
	if len(ids) == 0 {
		return fmt.Errorf("no task %d in %s: no tasks logged yet", id, TasksDir(dir))
	}
	lo, hi := ids[0], ids[0]
	for _, n := range ids {
		lo, hi = min(lo, n), max(hi, n)
	}
	known := fmt.Sprintf("task %d", lo)
	if lo != hi {
		known = fmt.Sprintf("tasks %d to %d", lo, hi)
	}
	return fmt.Errorf("no task %d in %s (logged: %s)", id, TasksDir(dir), known)
}

// Remove removes the task logs in the logs directory dir (its summary
// file, task files and session logs), then dir itself when that leaves it empty (an
// instance's logs directory also holds its proxy log). What else is in
// dir stays. Pruning an agent removes its logs with its runtime record
// (runrecord.RemoveRuntime).
func Remove(dir string) error {
	if err := os.Remove(SummaryPath(dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove task logs: %w", err)
	}
	for _, d := range []string{TasksDir(dir), SessionsDir(dir)} {
		if err := os.RemoveAll(d); err != nil {
			return fmt.Errorf("remove task logs: %w", err)
		}
	}
	_ = os.Remove(dir) // only succeeds when empty
	return nil
}
