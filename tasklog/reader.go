package tasklog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/actctl/actctl/model"
)

// Summaries reads actctl.log of the logs directory dir, oldest first. A
// missing file is no task yet. A malformed line does not hide the others:
// they are returned with an error naming the file and the line. A last
// line without its newline is a summary still being written and is left
// out.
func Summaries(dir string) ([]Summary, error) {
	p := SummaryPath(dir)
	data, err := model.ReadRegular(p, 0) // never a pipe or a device
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("task summaries: %w", err)
	}
	var out []Summary
	var errs []error
	for n, line := range completeLines(data) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		s, err := ParseSummary(line)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", p, n+1, err))
			continue
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

// ParseSummary decodes one line of actctl.log. A line without started
// is one `up` wrote before summaries held both times: its time is the
// task's start, so it reads as started = time, time = started +
// durationMs (docs/runtime.md, "Task log").
func ParseSummary(line []byte) (Summary, error) {
	var s Summary
	if err := json.Unmarshal(line, &s); err != nil {
		return Summary{}, fmt.Errorf("malformed task summary: %w", err)
	}
	if s.Started.IsZero() {
		s.Started = s.Time
		s.Time = s.Time.Add(time.Duration(s.DurationMs) * time.Millisecond)
	}
	return s, nil
}

// completeLines splits data into its newline-terminated lines (without
// the newline); trailing bytes without one are left out.
func completeLines(data []byte) [][]byte {
	var out [][]byte
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return out
		}
		out = append(out, data[:i])
		data = data[i+1:]
	}
}

// TaskFile is the file of task id in the logs directory dir. Task ids
// start again at 1 when `actctl up` restarts; when several files carry
// id, the latest is returned. When none does, the error names the ids
// that were logged.
func TaskFile(dir string, id uint64) (string, error) {
	ents, err := os.ReadDir(TasksDir(dir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("task logs: %w", err)
	}
	var ids []uint64
	var names []string
	for _, e := range ents {
		n, ok := parseName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		ids = append(ids, n)
		if n == id {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", errNoTask(dir, id, ids)
	}
	sort.Strings(names) // the names start with their UTC start time
	return filepath.Join(TasksDir(dir), names[len(names)-1]), nil
}

// LastID is the highest task id logged in dir (0 when none): `up` numbers
// its tasks after it, so that an id names one task across restarts.
func LastID(dir string) (uint64, error) {
	ents, err := os.ReadDir(TasksDir(dir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, fmt.Errorf("task logs: %w", err)
	}
	var last uint64
	for _, e := range ents {
		if n, ok := parseName(e.Name()); ok && e.Type().IsRegular() {
			last = max(last, n)
		}
	}
	return last, nil
}
