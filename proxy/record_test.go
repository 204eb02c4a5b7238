package proxy

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/actctl/actctl/schema"
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
			r := &schema.Resolved{Name: "a", Dir: dir, Archetype: schema.Archetype{Workspace: schema.WorkspaceInstance}}
			rec := RecordPath(r)
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
