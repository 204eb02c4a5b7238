package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirInside: a directory inside the root is returned resolved; "..",
// a path or link out of the root, a link inside the root to outside, a
// missing path and a file are refused with a message naming the cwd.
func TestDirInside(t *testing.T) {
	base := t.TempDir()
	root, out := filepath.Join(base, "ws"), filepath.Join(base, "other")
	for _, d := range []string{filepath.Join(root, "sub", "deep"), out} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"out": out, "in": filepath.Join(root, "sub"), "up": "..", "etc": "/etc"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	// The root itself reached through a link.
	rootLink := filepath.Join(base, "wslink")
	if err := os.Symlink(root, rootLink); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ root, dir, want, err string }{
		{root, "", root, ""},
		{root, ".", root, ""},
		{root, "sub/deep", filepath.Join(root, "sub", "deep"), ""},
		{root, filepath.Join(root, "sub"), filepath.Join(root, "sub"), ""},
		{root, "in", filepath.Join(root, "sub"), ""},
		{rootLink, "sub", filepath.Join(root, "sub"), ""},
		{root, filepath.Join(rootLink, "sub"), filepath.Join(root, "sub"), ""},
		{root, "sub/../sub", "", `a ".." component is not allowed`},
		{root, "..", "", `a ".." component is not allowed`},
		{root, "/etc", "", "cwd /etc is outside the workspace root " + root},
		{root, out, "", "is outside the workspace root"},
		{root, "out", "", "cwd out is outside the workspace root " + root + " (it resolves to " + out + ")"},
		{root, "etc", "", "cwd etc is outside the workspace root"},
		{root, "up", "", "cwd up is outside the workspace root"},
		{root, "missing", "", "cwd missing: "},
		{root, "file", "", "cwd file is not a directory"},
	} {
		got, err := DirInside(tc.root, tc.dir)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("DirInside(%s, %q) = %q, %v; want %q", tc.root, tc.dir, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("DirInside(%s, %q) = %q, %v; want an error with %q", tc.root, tc.dir, got, err, tc.err)
		}
	}
}
