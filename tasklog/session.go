package tasklog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/actctl/actctl/internal/layout"
)

// The session logs (docs/plugins.md, "What the logs record"): a session
// actctl relays (`actctl proxy`, a `proxy --lease` connection to up) is
// not a task, but its messages are logged as a task's are, one
// JSON-RPC line each, both ways as they went (after the session
// plugins, redacted), in a file of its own beside the task files:
// SessionsDir(dir)/<UTC start>-<name>.jsonl. They take no task id and
// no summary line.

// SessionsDir is the directory of session logs of the logs directory dir.
func SessionsDir(dir string) string { return filepath.Join(dir, layout.Sessions) }

// sessionName is what a session log's name may hold after its stamp.
var sessionName = regexp.MustCompile(`^[a-z]+-[0-9]+$`)

// BeginSession creates the message log of one relayed session started
// at started, named by name ("proxy-PID", "lease-N": lower-case letters,
// a dash and digits) in SessionsDir(dir); Close ends it. A file of that
// name already there is never appended to: the next free "-2", "-3" ...
// is taken.
func BeginSession(dir string, started time.Time, name string) (*Writer, error) {
	if !sessionName.MatchString(name) {
		return nil, fmt.Errorf("session log: bad name %q", name)
	}
	base := started.UTC().Format(stampLayout) + "-" + name
	for n := 1; n < 100; n++ {
		file := base + ".jsonl"
		if n > 1 {
			file = fmt.Sprintf("%s-%d.jsonl", base, n)
		}
		f, err := create(filepath.Join(SessionsDir(dir), file))
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("session log: %w", err)
		}
		pruneSessions(dir, file)
		return &Writer{dir: dir, name: file, path: f.Name(), f: f}, nil
	}
	return nil, fmt.Errorf("session log: %s: too many files of that name", filepath.Join(SessionsDir(dir), base))
}

// KeepSessions is how many session logs an agent keeps: beginning one
// removes the oldest beyond it, so that an editor's proxy, opened and
// closed all day, does not fill the disk (docs/plugins.md, "What the
// logs record").
const KeepSessions = 100

// pruneSessions removes the oldest session logs of dir beyond
// KeepSessions, never begun, the one just created. A log that cannot be
// removed stays: the next session tries again.
func pruneSessions(dir, begun string) {
	names, err := Sessions(dir)
	if err != nil || len(names) <= KeepSessions {
		return
	}
	for _, n := range names[:len(names)-KeepSessions] {
		if n != begun {
			_ = os.Remove(filepath.Join(SessionsDir(dir), n))
		}
	}
}

// Close closes a session log's file (a task's ends with Finish); its
// error reports a failed message write too.
func (w *Writer) Close() error {
	w.mu.Lock()
	f, werr := w.f, w.err
	w.f = nil
	w.mu.Unlock()
	if f == nil {
		return nil
	}
	return errors.Join(werr, f.Close())
}

// Sessions are the names of the session logs of dir, oldest first.
func Sessions(dir string) ([]string, error) {
	ents, err := os.ReadDir(SessionsDir(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("session logs: %w", err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".jsonl") && e.Type().IsRegular() {
			out = append(out, e.Name())
		}
	}
	// They start with their UTC start time; "x.jsonl" before "x-2.jsonl".
	sort.Slice(out, func(i, j int) bool {
		return strings.TrimSuffix(out[i], ".jsonl") < strings.TrimSuffix(out[j], ".jsonl")
	})
	return out, nil
}

// SessionFile is the session log of dir named name (as Sessions lists
// it, with or without ".jsonl"); "last" is the latest one.
func SessionFile(dir, name string) (string, error) {
	names, err := Sessions(dir)
	if err != nil {
		return "", err
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no session logged in %s yet", SessionsDir(dir))
	}
	if name == "last" {
		return filepath.Join(SessionsDir(dir), names[len(names)-1]), nil
	}
	name = strings.TrimSuffix(name, ".jsonl") + ".jsonl"
	for _, n := range names {
		if n == name {
			return filepath.Join(SessionsDir(dir), n), nil
		}
	}
	return "", fmt.Errorf("no session log %s in %s (%d logged; actctl logs AGENT --sessions lists them)", name, SessionsDir(dir), len(names))
}
