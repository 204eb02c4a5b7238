// Package runrecord keeps an agent's runtime record (docs/design.md, "The
// records"; docs/runtime.md): which process serves the agent, written by
// every command that runs one (up, proxy, run, chat, attach) and read by
// those that must not run it twice. Each write is a read-modify-write of
// the runtime keys only, under the record's lock, and a process that ends
// clears the record only where it names that process (MarkStopped). It
// also removes what running an agent left (RemoveRuntime).
package runrecord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/jsonkeys"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/lockedfile"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/supervise"
	"github.com/actctl/actctl/tasklog"
)

// Process ownership values of the runtime record, as in Actant's
// .actant.json: managed (actctl started the backend, e.g. proxy) or
// external (someone else did and told us with attach).
const (
	OwnershipManaged  = "managed"
	OwnershipExternal = "external"
)

// Statuses every command writes in the runtime record: the supervisor's
// words, since up writes its agents' states (supervise.State) as they are.
const (
	StatusRunning = string(supervise.Running)
	StatusStopped = string(supervise.Stopped)
)

// Record is the runtime part of an agent's .actant.json: which process
// serves it. The static part (name, template, backend, ...) is written by
// apply; these keys are written only at runtime, with byte-exact key edits
// so that neither side disturbs the other.
type Record struct {
	ProcessOwnership string `json:"processOwnership,omitempty"`
	Status           string `json:"status,omitempty"`
	PID              int    `json:"pid,omitempty"`
	// PIDStart is the start time of PID since boot (Linux; 0 unknown): a
	// process that reuses the pid is not the one recorded.
	PIDStart  uint64 `json:"pidStart,omitempty"`
	CreatedAt string `json:"createdAt,omitempty"`
	UpdatedAt string `json:"updatedAt,omitempty"`
}

// Path is where an agent's runtime record lives: .actant.json in an
// instance workspace (Actant-compatible), and .actant/agents/<name>.json in
// a project workspace, where several tool agents share one directory.
func Path(r *model.Resolved) string {
	if r.Archetype.Workspace == model.WorkspaceInstance {
		return filepath.Join(r.Dir, layout.InstanceRecord)
	}
	return layout.Path(r.Dir, layout.Agents, r.Name+".json")
}

// LogPath is where proxy sessions of r log: the instance's logs/, or
// .actant/logs/<name>.log in a project (kept out of the user's tree and git).
func LogPath(r *model.Resolved) string {
	if r.Archetype.Workspace == model.WorkspaceInstance {
		return filepath.Join(r.Dir, layout.Logs, "proxy.log")
	}
	return layout.Path(r.Dir, layout.Logs, r.Name+".log")
}

// RemoveRuntime removes what running r left beside its materialized files:
// the runtime keys of its record (the file too when nothing else is left
// in it; another key someone wrote there stays), its proxy log and the
// task logs `actctl up` kept of it (package tasklog), then
// the directories that held them when that leaves them empty. Call it once
// r's files are pruned, when the agent is gone for good.
func RemoveRuntime(r *model.Resolved) error {
	if err := clearRecord(Path(r)); err != nil {
		return err
	}
	if err := os.Remove(LockPath(Path(r))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Remove(LogPath(r)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := tasklog.Remove(tasklog.Dir(r)); err != nil {
		return err
	}
	dirs := []string{layout.Path(r.Dir, layout.Agents), layout.Path(r.Dir, layout.Logs), layout.Path(r.Dir)}
	if r.Archetype.Workspace == model.WorkspaceInstance {
		dirs = []string{filepath.Join(r.Dir, layout.Logs), r.Dir}
	}
	for _, d := range dirs {
		_ = os.Remove(d) // only succeeds when empty: anything else stays
	}
	return nil
}

// clearRecord deletes the runtime keys of the record at path, and the
// file when it then holds an empty object. A missing file is no error.
func clearRecord(path string) error {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	set := map[string]any{}
	for _, k := range runtimeKeys {
		set[k] = nil
	}
	if err := Update(path, set); err != nil {
		return err
	}
	b, err := readRecord(path)
	if err != nil {
		return fmt.Errorf("clear %s: %w", path, err)
	}
	if jsonkeys.IsEmptyObject(b) {
		return atomicfile.Remove(path)
	}
	return nil
}

// runtimeKeys are the keys of a record only the runtime writes.
var runtimeKeys = []string{"processOwnership", "status", "pid", "pidStart", "createdAt", "updatedAt"}

// Read reads the runtime keys of the record at path; a missing file
// is an empty record.
func Read(path string) (Record, error) {
	b, err := readRecord(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, nil
	}
	if err != nil {
		return Record{}, fmt.Errorf("read %s: %w", path, err)
	}
	rec, err := decodeRecord(b)
	if err != nil {
		return rec, fmt.Errorf("read %s: %w", path, err)
	}
	return rec, nil
}

// maxRecord bounds a runtime record's size: one is a few hundred bytes.
const maxRecord = 1 << 20

// readRecord reads the record at path: a regular file of at most
// maxRecord bytes. Anything else (a named pipe, a link to a device, from
// a checkout or another program) is refused without blocking, so a record
// cannot hang or exhaust actctl (docs/design.md, "What actctl trusts").
func readRecord(path string) ([]byte, error) { return model.ReadRegular(path, maxRecord) }

// decodeRecord decodes the runtime keys of a record's bytes. Plain JSON
// whose numbers are integers (every record actctl writes) decodes as it
// is; anything else through its canonical form (numbers such as 1.0 or
// 1e3): the same result, without building and sorting a map of every
// key (`status` reads 10,000 records at 10,000 agents).
func decodeRecord(b []byte) (Record, error) {
	var rec Record
	if json.Unmarshal(b, &rec) == nil {
		return rec, nil
	}
	rec = Record{}
	std, err := jsonStandard(b)
	if err != nil {
		return rec, err
	}
	err = json.Unmarshal(std, &rec)
	return rec, err
}

func jsonStandard(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return []byte("{}"), nil
	}
	v, err := jsonkeys.Canonical(b)
	return v, err
}

// Live reports whether the record names a running process: its pid runs
// and, where its start time was recorded, with that start time.
func (r Record) Live() bool {
	if r.PID <= 0 || !launch.PIDAlive(r.PID) {
		return false
	}
	start, err := launch.StartTime(r.PID)
	return r.PIDStart == 0 || (err == nil && start == r.PIDStart)
}

// Update sets the runtime keys of the record at path (nil values
// delete a key), leaving every other key and byte of the file as it was.
// createdAt is set the first time. The read-modify-write is done under
// the record's lock, so that writers in other processes (up, proxy, run,
// attach) never lose each other's keys.
func Update(path string, set map[string]any) error {
	return withRecord(path, func(b []byte) (map[string]any, error) { return set, nil })
}

// MarkRunning records that the managed process pid serves the agent: the
// one way proxy, run, chat and up write it (attach writes an external one).
func MarkRunning(path string, pid int) error { return markRunning(path, OwnershipManaged, pid) }

func markRunning(path, ownership string, pid int) error {
	start, _ := launch.StartTime(pid)
	set := map[string]any{"processOwnership": ownership, "status": StatusRunning, "pid": pid, "pidStart": nil}
	if start > 0 {
		set["pidStart"] = start
	}
	if err := Update(path, set); err != nil {
		return err
	}
	recorded.Store(path, Record{PID: pid, PIDStart: start})
	return nil
}

// recorded holds, per record path, the process this actctl last marked
// running there: MarkStopped is called once that process is gone, when
// its start time can no longer be read.
var recorded sync.Map

// names reports whether rec names process pid, the one this actctl
// recorded at path (the same pid and, where both are known, the same
// start time: not another process that reuses the pid).
func names(rec Record, path string, pid int) bool {
	if rec.PID != pid {
		return false
	}
	ours, _ := recorded.Load(path)
	o, _ := ours.(Record)
	return rec.PIDStart == 0 || o.PID != pid || o.PIDStart == 0 || o.PIDStart == rec.PIDStart
}

// MarkStopped records that process pid no longer serves the agent (status
// is "stopped", "crashed", ...), only when the record names that process
// (its pid and start time: names), names none, or names one no longer
// alive (Live): a record another live process took meanwhile, even one
// that reuses the pid, is left as it is (false). pid 0 is a process that
// never started. A missing record is written only when pid > 0.
func MarkStopped(path string, pid int, status string) (bool, error) {
	cleared := false
	err := withRecord(path, func(b []byte) (map[string]any, error) {
		if len(b) == 0 && pid == 0 {
			return nil, nil
		}
		rec, err := decodeRecord(b)
		if err != nil {
			return nil, err
		}
		if rec.PID != 0 && !names(rec, path, pid) && rec.Live() {
			return nil, nil
		}
		cleared = true
		return map[string]any{"status": status, "pid": nil, "pidStart": nil}, nil
	})
	return cleared, err
}

// withRecord runs change on the record's bytes (nil when there is no
// file) under the record's lock and writes the keys it returns (nil:
// nothing to write).
func withRecord(path string, change func(b []byte) (map[string]any, error)) error {
	unlock, err := lockRecord(path)
	if err != nil {
		return err
	}
	defer unlock()
	b, err := readRecord(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("update %s: %w", path, err)
	}
	set, err := change(b)
	if err != nil || set == nil {
		return err
	}
	return writeKeys(path, b, set)
}

// lockWait bounds the wait for a record's lock; its holders keep it for
// one read and one write.
const lockWait = 10 * time.Second

// lockRecord takes the lock of the record at path: the file path.lock
// beside it (the record itself is replaced by a rename on each write, so
// it cannot carry the lock). Where file locks are not supported, writes
// go unlocked as before.
func lockRecord(path string) (func(), error) {
	// Every write of a record starts here: never through a link under
	// .actant (a checkout may bring one).
	if err := layout.NoLinksIn(path); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if _, err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	p := LockPath(path)
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|layout.NoFollow, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	err = lockedfile.Wait(context.Background(), lockWait, time.Millisecond, 50*time.Millisecond,
		func() error { return lockedfile.TryLock(f) })
	switch {
	case err == nil:
		return func() { _ = lockedfile.Unlock(f); f.Close() }, nil
	case errors.Is(err, lockedfile.ErrNotSupported):
		return func() { f.Close() }, nil
	case errors.Is(err, lockedfile.ErrWouldBlock):
		f.Close()
		return nil, fmt.Errorf("lock %s: held by another process for %s", p, lockWait)
	default:
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", p, err)
	}
}

// LockPath is the lock file of the record at path.
func LockPath(path string) string { return path + ".lock" }

// writeKeys sets the keys of set in the record b and writes it to path.
func writeKeys(path string, b []byte, set map[string]any) error {
	var err error
	now := time.Now().UTC().Format(time.RFC3339)
	if _, ok, _ := jsonkeys.Get(b, []string{"createdAt"}); !ok {
		set["createdAt"] = now
	}
	set["updatedAt"] = now
	if _, ok := set["pidStart"]; !ok && set["pid"] != nil {
		set["pidStart"] = nil // a pid written alone: its start time is unknown
	}
	// createdAt/updatedAt are deleted by Detach with cleanup like the rest.
	if v, ok := set["status"]; ok && v == nil {
		set["createdAt"], set["updatedAt"] = nil, nil
	}
	keys := slices.Sorted(maps.Keys(set))
	for _, k := range keys {
		v := set[k]
		if v == nil {
			if _, ok, _ := jsonkeys.Get(b, []string{k}); ok {
				if b, err = jsonkeys.Delete(b, []string{k}, jsonkeys.Receipt{}); err != nil {
					return fmt.Errorf("update %s: %w", path, err)
				}
			}
			continue
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if b, _, err = jsonkeys.Set(b, []string{k}, raw); err != nil {
			return fmt.Errorf("update %s: %w", path, err)
		}
	}
	return atomicfile.Write(path, b, 0o644)
}

// Attach records an externally started process as serving the agent.
func Attach(r *model.Resolved, pid int) error {
	if pid <= 1 {
		// 1 is init (or a container's entry point), 0 and below name
		// process groups to kill(2): never one agent's backend, and
		// `actctl stop` would signal them.
		return fmt.Errorf("attach %s: pid %d is not a backend's process: want the pid of the agent's running backend", r.Name, pid)
	}
	if !launch.PIDAlive(pid) {
		return fmt.Errorf("attach %s: no process with pid %d is running", r.Name, pid)
	}
	return markRunning(Path(r), OwnershipExternal, pid)
}

// Detach forgets the process serving the agent. With cleanup the runtime
// keys are removed entirely (the record returns to what apply wrote).
func Detach(r *model.Resolved, cleanup bool) error {
	path := Path(r)
	rec, err := Read(path)
	if err != nil {
		return err
	}
	if rec.PID == 0 && rec.Status == "" {
		return fmt.Errorf("detach %s: no process is attached (%s)", r.Name, path)
	}
	if cleanup {
		return Update(path, map[string]any{"processOwnership": nil, "status": nil, "pid": nil, "pidStart": nil})
	}
	return Update(path, map[string]any{"status": StatusStopped, "pid": nil, "pidStart": nil})
}

// RemovePruned removes the runtime record and proxy log of an agent
// apply pruned, known by the directory the state recorded for it (an
// instance agent's is <home>/instances/<name>): left behind, they would
// keep a pruned instance's directory, and the agent declared again would
// find an .actant.json that is not actctl's. A record that names a live
// process stays: something still serves it.
func RemovePruned(home, name, dir string) error {
	r := &model.Resolved{Name: name, Dir: dir}
	if dir == filepath.Join(home, "instances", name) {
		r.Archetype.Workspace = model.WorkspaceInstance
	}
	if rec, _ := Read(Path(r)); rec.Live() {
		return nil
	}
	return RemoveRuntime(r)
}
