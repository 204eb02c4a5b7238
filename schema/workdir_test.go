package schema

import (
	"path/filepath"
	"testing"
)

// TestWithin: a path is within a directory when it is the directory or
// below it; a sibling whose name starts with the directory's, or with
// "..", is told apart.
func TestWithin(t *testing.T) {
	j := filepath.FromSlash
	cases := []struct {
		dir, path, rel string
		ok             bool
	}{
		{"/ws", "/ws", ".", true},
		{"/ws", "/ws/a/b", j("a/b"), true},
		{"/ws", "/ws/..a", "..a", true},
		{"/ws", "/", "", false},
		{"/ws", "/wsx", "", false},
		{"/ws", "/other/ws", "", false},
		{"/ws/a", "/ws", "", false},
		{"ws", "/ws", "", false},
	}
	for _, c := range cases {
		dir, path := j(c.dir), j(c.path)
		rel, ok := RelWithin(dir, path)
		if rel != c.rel || ok != c.ok || Within(dir, path) != c.ok {
			t.Errorf("RelWithin(%q, %q) = %q, %v; want %q, %v", dir, path, rel, ok, c.rel, c.ok)
		}
	}
}
