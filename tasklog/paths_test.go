package tasklog_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/tasklog"
)

// TestLogPathsDistinct: in a project, the proxy log and the task logs of
// distinct agents never meet: agent x.log's task logs are not x's proxy
// log, and each agent's logs work with the others' in place.
func TestLogPathsDistinct(t *testing.T) {
	root := t.TempDir()
	names := []string{"x", "x.log", "x.log.log", "log", "x.lo", "a.b"}
	owner := map[string]string{} // path -> what it is
	for _, n := range names {
		r := &model.Resolved{Name: n, Dir: root, Archetype: model.Archetype{Workspace: model.WorkspaceProject}}
		for what, p := range map[string]string{"proxy log of " + n: runrecord.LogPath(r), "task logs of " + n: tasklog.Dir(r)} {
			for q, other := range owner {
				if p == q || strings.HasPrefix(p, q+string(filepath.Separator)) || strings.HasPrefix(q, p+string(filepath.Separator)) {
					t.Errorf("%s (%s) meets %s (%s)", what, p, other, q)
				}
			}
			owner[p] = what
		}
	}
	for _, n := range names { // what the proxy and up write, in that order
		r := &model.Resolved{Name: n, Dir: root, Archetype: model.Archetype{Workspace: model.WorkspaceProject}}
		if err := os.MkdirAll(filepath.Dir(runrecord.LogPath(r)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(runrecord.LogPath(r), []byte(n+"\n"), 0o644); err != nil {
			t.Fatalf("proxy log of %s: %v", n, err)
		}
	}
	for _, n := range names {
		r := &model.Resolved{Name: n, Dir: root, Archetype: model.Archetype{Workspace: model.WorkspaceProject}}
		w, err := tasklog.Begin(tasklog.Dir(r), tasklog.Task{ID: 1, Kind: "prompt"})
		if err != nil {
			t.Fatalf("task log of %s: %v", n, err)
		}
		if err := w.Finish(tasklog.Summary{Task: 1, Kind: "prompt"}); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(runrecord.LogPath(r)); err != nil || string(b) != n+"\n" {
			t.Fatalf("proxy log of %s: %q %v", n, b, err)
		}
	}
}
