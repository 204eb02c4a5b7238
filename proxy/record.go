package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/jsonkeys"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/tasklog"
)

// Process ownership values of the runtime record, as in Actant's
// .actant.json: managed (actctl started the backend, e.g. proxy) or
// external (someone else did and told us with attach).
const (
	OwnershipManaged  = "managed"
	OwnershipExternal = "external"
)

// Record is the runtime part of an agent's .actant.json: which process
// serves it. The static part (name, template, backend, ...) is written by
// apply; these keys are written only at runtime, with byte-exact key edits
// so that neither side disturbs the other.
type Record struct {
	ProcessOwnership string `json:"processOwnership,omitempty"`
	Status           string `json:"status,omitempty"`
	PID              int    `json:"pid,omitempty"`
	CreatedAt        string `json:"createdAt,omitempty"`
	UpdatedAt        string `json:"updatedAt,omitempty"`
}

// RecordPath is where an agent's runtime record lives: .actant.json in an
// instance workspace (Actant-compatible), and .actant/agents/<name>.json in
// a project workspace, where several tool agents share one directory.
func RecordPath(r *schema.Resolved) string {
	if r.Archetype.Workspace == schema.WorkspaceInstance {
		return filepath.Join(r.Dir, layout.InstanceRecord)
	}
	return layout.Path(r.Dir, layout.Agents, r.Name+".json")
}

// LogPath is where proxy sessions of r log: the instance's logs/, or
// .actant/logs/<name>.log in a project (kept out of the user's tree and git).
func LogPath(r *schema.Resolved) string {
	if r.Archetype.Workspace == schema.WorkspaceInstance {
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
func RemoveRuntime(r *schema.Resolved) error {
	if err := clearRecord(RecordPath(r)); err != nil {
		return err
	}
	if err := os.Remove(LogPath(r)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := tasklog.Remove(tasklog.Dir(r)); err != nil {
		return err
	}
	dirs := []string{layout.Path(r.Dir, layout.Agents), layout.Path(r.Dir, layout.Logs), layout.Path(r.Dir)}
	if r.Archetype.Workspace == schema.WorkspaceInstance {
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
	if err := UpdateRecord(path, set); err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("clear %s: %w", path, err)
	}
	if jsonkeys.IsEmptyObject(b) {
		return atomicfile.Remove(path)
	}
	return nil
}

// runtimeKeys are the keys of a record only the runtime writes.
var runtimeKeys = []string{"processOwnership", "status", "pid", "createdAt", "updatedAt"}

// ReadRecord reads the runtime keys of the record at path; a missing file
// is an empty record.
func ReadRecord(path string) (Record, error) {
	var rec Record
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return rec, nil
	}
	if err != nil {
		return rec, fmt.Errorf("read %s: %w", path, err)
	}
	std, err := jsonStandard(b)
	if err != nil {
		return rec, fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(std, &rec); err != nil {
		return rec, fmt.Errorf("read %s: %w", path, err)
	}
	return rec, nil
}

func jsonStandard(b []byte) ([]byte, error) {
	if len(b) == 0 {
		return []byte("{}"), nil
	}
	v, err := jsonkeys.Canonical(b)
	return v, err
}

// Live reports whether the record names a running process.
func (r Record) Live() bool { return r.PID > 0 && PIDAlive(r.PID) }

// UpdateRecord sets the runtime keys of the record at path (nil values
// delete a key), leaving every other key and byte of the file as it was.
// createdAt is set the first time.
func UpdateRecord(path string, set map[string]any) error {
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("update %s: %w", path, err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	if _, ok, _ := jsonkeys.Get(b, []string{"createdAt"}); !ok {
		set["createdAt"] = now
	}
	set["updatedAt"] = now
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
	if _, err := atomicfile.MkdirAll(filepath.Dir(path)); err != nil {
		return fmt.Errorf("update %s: %w", path, err)
	}
	return atomicfile.Write(path, b, 0o644)
}

// Attach records an externally started process as serving the agent.
func Attach(r *schema.Resolved, pid int) error {
	if pid <= 1 {
		// 1 is init (or a container's entry point), 0 and below name
		// process groups to kill(2): never one agent's backend, and
		// `actctl stop` would signal them.
		return fmt.Errorf("attach %s: pid %d is not a backend's process: want the pid of the agent's running backend", r.Name, pid)
	}
	if !PIDAlive(pid) {
		return fmt.Errorf("attach %s: no process with pid %d is running", r.Name, pid)
	}
	return UpdateRecord(RecordPath(r), map[string]any{
		"processOwnership": OwnershipExternal, "status": "running", "pid": pid,
	})
}

// Detach forgets the process serving the agent. With cleanup the runtime
// keys are removed entirely (the record returns to what apply wrote).
func Detach(r *schema.Resolved, cleanup bool) error {
	path := RecordPath(r)
	rec, err := ReadRecord(path)
	if err != nil {
		return err
	}
	if rec.PID == 0 && rec.Status == "" {
		return fmt.Errorf("detach %s: no process is attached (%s)", r.Name, path)
	}
	if cleanup {
		return UpdateRecord(path, map[string]any{"processOwnership": nil, "status": nil, "pid": nil})
	}
	return UpdateRecord(path, map[string]any{"status": "stopped", "pid": nil})
}
