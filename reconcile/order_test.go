package reconcile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// applyTargets is Apply without the config and the renderer: targets
// planned against the recorded state and executed.
func applyTargets(t *testing.T, root string, targets []*materialize.Target) {
	t.Helper()
	st, data, err := ReadState(metaPath(root, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	r := &run{cfg: &schema.Config{Root: root}, targets: targets}
	if err := r.makePlan(st, data, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	if c := r.plan.Conflicts(); len(c) > 0 {
		t.Fatalf("conflicts %+v", c)
	}
	if _, err := r.execute(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestPruneOrderWithoutCounters: the blocks and keys of one file come out
// exactly, whatever the order their agents go in, without any insertion
// counter in the records: a replay takes them out from the end of the
// file (where Set put the later ones). The user's files have no final
// newline and no .mcp.json object yet, the cases where the order of
// removal decides whether a separator or a created parent comes off.
// (issue #20 item 2)
func TestPruneOrderWithoutCounters(t *testing.T) {
	user := map[string]string{"CLAUDE.md": "# mine\nno final newline", ".mcp.json": "", "c.toml": "model = \"o3\""}
	agent := func(root, n string) *materialize.Target {
		k := func(path ...string) []materialize.Key {
			return []materialize.Key{{Path: path, Value: []byte(`{"command":"` + n + `"}`)}}
		}
		return target(root, n, schema.ConflictAppend,
			materialize.Entry{Path: "CLAUDE.md", Mode: materialize.ModeBlock, Style: "html", Content: []byte("rules of " + n + "\n")},
			materialize.Entry{Path: ".mcp.json", Mode: materialize.ModeKeys, Format: "json", Keys: k("mcpServers", n)},
			materialize.Entry{Path: "c.toml", Mode: materialize.ModeKeys, Format: "toml", Keys: k("mcp_servers", n)},
		)
	}
	names := []string{"a", "b", "c"}
	for _, order := range [][]int{{0, 1, 2}, {1, 0, 2}, {2, 1, 0}, {0, 2, 1}} {
		root := t.TempDir()
		for p, c := range user {
			if err := os.WriteFile(filepath.Join(root, p), []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var targets []*materialize.Target
		for _, n := range names { // one apply per agent: a inserted first
			targets = append(targets, agent(root, n))
			applyTargets(t, root, targets)
		}
		if owned, _ := os.ReadFile(filepath.Join(root, OwnedFile)); len(owned) == 0 || bytes.Contains(owned, []byte(`"seq"`)) {
			t.Fatalf("a counter in %s:\n%s", OwnedFile, owned)
		}
		left := map[string]bool{"a": true, "b": true, "c": true}
		for _, i := range order {
			delete(left, names[i])
			var keep []*materialize.Target
			for _, n := range names {
				if left[n] {
					keep = append(keep, agent(root, n))
				}
			}
			applyTargets(t, root, keep)
		}
		for p, c := range user {
			got, err := os.ReadFile(filepath.Join(root, p))
			if c == "" && os.IsNotExist(err) {
				continue // created from nothing: removed again
			}
			if string(got) != c {
				t.Errorf("pruned in order %v: %s is %q, want %q", order, p, got, c)
			}
		}
	}
}
