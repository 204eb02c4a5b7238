package reconcile

import "testing"

// TestDiffLabel: diff headers join a/ and b/ to a path as git diff
// --no-index does (new-user review item 2).
func TestDiffLabel(t *testing.T) {
	for _, c := range []struct{ rel, want string }{
		{"CLAUDE.md", "b/CLAUDE.md"},
		{"sub/.mcp.json", "b/sub/.mcp.json"},
		{"/root/.actant/instances/s/CLAUDE.md", "b/root/.actant/instances/s/CLAUDE.md"},
	} {
		if got := diffLabel("b", c.rel); got != c.want {
			t.Errorf("diffLabel(b, %q) = %q, want %q", c.rel, got, c.want)
		}
	}
}
