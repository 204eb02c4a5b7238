package runrecord

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/tasklog"
)

// TestRemoveRuntime: the runtime keys go, a key someone else wrote stays
// (with its file and directory); a record of runtime keys only is removed
// with its now empty directories.
func TestRemoveRuntime(t *testing.T) {
	for _, tt := range []struct {
		name, before, after string // after "" = file removed
	}{
		// what apply's prune leaves of a served agent's .actant.json
		{"runtime only", `{"pid": 1, "status": "stopped", "processOwnership": "managed", "createdAt": "x", "updatedAt": "y"}`, ""},
		{"another key", "{\n  \"note\": \"mine\",\n  \"pid\": 1\n}\n", "{\n  \"note\": \"mine\"\n}\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "a")
			r := &model.Resolved{Name: "a", Dir: dir, Archetype: model.Archetype{Workspace: model.WorkspaceInstance}}
			rec := Path(r)
			os.MkdirAll(filepath.Dir(LogPath(r)), 0o755)
			os.WriteFile(LogPath(r), []byte("log\n"), 0o644)
			os.WriteFile(rec, []byte(tt.before), 0o644)
			if err := RemoveRuntime(r); err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(rec)
			if tt.after == "" {
				if _, derr := os.Stat(dir); err == nil || derr == nil {
					t.Errorf("record or instance dir left: %q", b)
				}
				return
			}
			if string(b) != tt.after {
				t.Errorf("record = %q, want %q", b, tt.after)
			}
			if _, err := os.Stat(LogPath(r)); err == nil {
				t.Error("proxy log left")
			}
		})
	}
}

// TestRemoveRuntimeTaskLogs: pruning an agent removes the task logs up
// kept of it (instance and project workspaces), and with them the
// directories they leave empty; another agent's logs and a user's file
// in the logs directory stay.
func TestRemoveRuntimeTaskLogs(t *testing.T) {
	for _, ws := range []string{model.WorkspaceInstance, model.WorkspaceProject} {
		t.Run(ws, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "a")
			r := &model.Resolved{Name: "a", Dir: dir, Archetype: model.Archetype{Workspace: ws}}
			other := &model.Resolved{Name: "b", Dir: dir, Archetype: model.Archetype{Workspace: ws}}
			for _, d := range []string{tasklog.Dir(r), tasklog.Dir(other)} {
				w, err := tasklog.Begin(d, tasklog.Task{ID: 1, Kind: "prompt"})
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Finish(tasklog.Summary{Task: 1, Kind: "prompt"}); err != nil {
					t.Fatal(err)
				}
				if ws == model.WorkspaceInstance {
					break // one agent per instance
				}
			}
			if err := RemoveRuntime(r); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(tasklog.SummaryPath(tasklog.Dir(r))); !os.IsNotExist(err) {
				t.Errorf("task summaries left: %v", err)
			}
			if ws == model.WorkspaceInstance {
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("instance dir left: %v", err)
				}
				return
			}
			if _, err := os.Stat(tasklog.Dir(r)); !os.IsNotExist(err) {
				t.Errorf("a's logs dir left: %v", err)
			}
			if _, err := os.Stat(tasklog.SummaryPath(tasklog.Dir(other))); err != nil {
				t.Errorf("b's task logs: %v", err)
			}
		})
	}
	dir := t.TempDir()
	r := &model.Resolved{Name: "a", Dir: dir, Archetype: model.Archetype{Workspace: model.WorkspaceInstance}}
	mine := filepath.Join(tasklog.Dir(r), "notes.txt")
	os.MkdirAll(filepath.Dir(mine), 0o755)
	os.WriteFile(mine, []byte("mine\n"), 0o644)
	if err := RemoveRuntime(r); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("a user's file in logs/: %v", err)
	}
}

// TestUpdateRecordConcurrent: writers of one record, each setting a key of
// its own at once, all find their key in it: the read-modify-write is
// done under the record's lock (on the old code writes were lost).
func TestUpdateRecordConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", ".actant.json")
	const n = 32
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- Update(path, map[string]any{fmt.Sprintf("k%02d", i): i})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, ok := got[fmt.Sprintf("k%02d", i)]; !ok {
			t.Errorf("k%02d lost: %s", i, b)
		}
	}
}

// TestMarkStopped: a process's end clears the record only where it names
// that process, none, or one no longer alive (issue #26 item 2).
func TestMarkStopped(t *testing.T) {
	const dead = 1 << 30 // above any pid_max: never a live process
	self := os.Getpid()
	for _, tc := range []struct {
		name    string
		before  string // "" = no file
		pid     int
		cleared bool
	}{
		{"its own process", fmt.Sprintf(`{"status": "running", "pid": %d}`, dead), dead, true},
		{"another live process", fmt.Sprintf(`{"status": "running", "pid": %d}`, self), dead, false},
		{"another dead process", fmt.Sprintf(`{"status": "running", "pid": %d}`, dead), dead - 1, true},
		{"no process", `{"status": "stopped"}`, dead, true},
		{"never started, live record", fmt.Sprintf(`{"status": "running", "pid": %d}`, self), 0, false},
		{"never started, no record", "", 0, false},
		{"no record", "", dead, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "a.json")
			if tc.before != "" {
				if err := os.WriteFile(path, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cleared, err := MarkStopped(path, tc.pid, "crashed")
			if err != nil || cleared != tc.cleared {
				t.Fatalf("MarkStopped = %v, %v; want %v", cleared, err, tc.cleared)
			}
			b, _ := os.ReadFile(path)
			switch {
			case !tc.cleared && string(b) != tc.before:
				t.Errorf("record %q changed to %q", tc.before, b)
			case tc.cleared:
				if rec, _ := Read(path); rec.Status != "crashed" || rec.PID != 0 {
					t.Errorf("record %q, want crashed with no pid", b)
				}
			}
		})
	}
}

// TestDecodeRecordAsCanonical: a record decodes to what its canonical
// form decodes to, plain or not.
func TestDecodeRecordAsCanonical(t *testing.T) {
	for _, b := range []string{
		`{"pid": 12, "pidStart": 34, "status": "running", "processOwnership": "managed", "name": "x"}`,
		`{"pid": 12.0, "status": "running"}`,
		`{"pid": 1e3, "pidStart": 2E2}`,
		`{"pid": 1, "pid": 2}`,
		`{"status": 7}`,
		``,
		`[1]`,
	} {
		got, gotErr := decodeRecord([]byte(b))
		var want Record
		std, wantErr := jsonStandard([]byte(b))
		if wantErr == nil {
			wantErr = json.Unmarshal(std, &want)
		}
		if got != want || (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: %+v (%v), canonical %+v (%v)", b, got, gotErr, want, wantErr)
		}
	}
}
