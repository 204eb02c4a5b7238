package materialize

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestWarningPositions: every render warning is positioned at its agent
// in the user's file, whatever the agent's name needs in a CUE path
// (a hyphen or a dot: agents."cursor-agent"), as validate prints
// every other diagnostic (issue #34 item 6: cursor-agent's warnings had
// no position).
func TestWarningPositions(t *testing.T) {
	root := t.TempDir()
	src := `package actant

templates: pi: {backend: "pi", permissions: "readonly"}
agents: {
	plain: template: "pi"
	"cursor-agent": template: "pi"
	"my.agent": template: "pi"
	a_b: template: "pi"
}
`
	if err := os.WriteFile(filepath.Join(root, schema.FileName), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := schema.LoadDir(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_, diags := RenderAll(cfg, Options{})
	lines := map[string]int{"plain": 5, "cursor-agent": 6, "my.agent": 7, "a_b": 8}
	seen := map[string]bool{}
	for _, d := range diags {
		for name, line := range lines {
			if d.Path != schema.Path("agents", name) {
				continue
			}
			seen[name] = true
			if !d.Pos.IsValid() || d.Pos.Line() != line {
				t.Errorf("%s: warning %q at %v, want line %d", name, d.Message, d.Pos, line)
			}
		}
	}
	if len(seen) != len(lines) {
		t.Errorf("warnings for %v only, in %v", seen, diags)
	}
}
