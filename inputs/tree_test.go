package inputs

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestAddTreeFollowsLinks: addTree records what the loader reads
// through links by their targets — a tree that is itself a link, a link
// to a directory inside it, a link to a file (its target's stat data) —
// ends on a link loop, and records a dangling link as missing.
func TestAddTreeFollowsLinks(t *testing.T) {
	base := t.TempDir()
	write(t, filepath.Join(base, "real/a.md"), "a")
	write(t, filepath.Join(base, "real/sub/b.md"), "b")
	write(t, filepath.Join(base, "other/c.md"), "c")
	links := map[string]string{
		"tree":               "real",
		"real/linked":        "../other",
		"real/file.md":       "../other/c.md",
		"real/sub/loop":      "..",
		"real/dangling.md":   "nowhere",
		"other/back-to-tree": "../real",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(base, l)); err != nil {
			t.Fatal(err)
		}
	}
	var got []Stat
	add := func(p string, lstat, presence bool) error {
		st, err := statOf(p, lstat, presence)
		got = append(got, st)
		return err
	}
	tree := filepath.Join(base, "tree")
	if err := addTree(tree, add); err != nil {
		t.Fatal(err)
	}
	byPath := map[string]Stat{}
	var paths []string
	for _, s := range got {
		rel, _ := filepath.Rel(tree, s.Path)
		byPath[rel] = s
		paths = append(paths, filepath.ToSlash(rel))
	}
	for _, want := range []string{".", "a.md", "sub/b.md", "linked/c.md", "file.md", "dangling.md", "sub/loop/a.md", "linked/back-to-tree/a.md"} {
		if !slices.Contains(paths, want) {
			t.Errorf("%s not recorded: %v", want, paths)
		}
	}
	target, err := statOf(filepath.Join(base, "other/c.md"), true, false)
	if err != nil {
		t.Fatal(err)
	}
	if s := byPath["file.md"]; s.Ino != target.Ino || s.Size != target.Size || s.Mode != target.Mode {
		t.Errorf("file.md recorded as %+v, want its target %+v", s, target)
	}
	if !byPath["dangling.md"].Missing {
		t.Errorf("dangling link recorded %+v", byPath["dangling.md"])
	}
	if n := len(paths); n > 40 {
		t.Errorf("%d entries: the loop was walked too often: %v", n, paths)
	}
}
