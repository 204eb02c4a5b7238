package reconcile

import (
	"fmt"
	"math/rand/v2"
	"path"
	"testing"
)

// trackedSlow is the question gitTracked answers, asked the direct way:
// rel is tracked when, below one of the project directories dirs, it
// names a tracked file or a directory holding one.
func trackedSlow(entries, dirs []string, rel string) bool {
	tracked := map[string]bool{}
	for _, e := range entries {
		for p := e; p != "."; p = path.Dir(p) {
			tracked[p] = true
		}
	}
	for _, d := range dirs {
		if tracked[path.Clean(path.Join(d, rel))] {
			return true
		}
	}
	return false
}

// TestTrackedUnder: the one-lookup index answers as the direct walk does,
// for project directories at the root, nested, nested in each other,
// holding nothing tracked, and for tracked files, their directories and
// paths git does not track.
func TestTrackedUnder(t *testing.T) {
	entries := []string{"README.md", "a/CLAUDE.md", "a/.claude/settings.json", "a/b/notes/x.md", "team/x/.mcp.json", "deep/1/2/3/f"}
	for _, dirs := range [][]string{
		{"."}, {"a"}, {"a", "a/b"}, {"team/x", "team/y"}, {"nothing", "deep/1"}, {"deep/1/2/3"}, {},
	} {
		under := trackedUnder(entries, dirs)
		for _, rel := range []string{"README.md", "CLAUDE.md", ".claude", ".claude/settings.json", "notes", "notes/x.md", "b/notes",
			".mcp.json", "x/.mcp.json", "2/3/f", "2", "f", "a", "team", "missing", ".gemini/settings.json"} {
			if got, want := under[rel], trackedSlow(entries, dirs, rel); got != want {
				t.Errorf("dirs %q: %s tracked = %v, want %v", dirs, rel, got, want)
			}
		}
	}
}

// TestTrackedUnderRandom: the same, on generated trees (a fixed seed).
func TestTrackedUnderRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	name := func() string { return string(rune('a' + r.IntN(4))) }
	pathOf := func(depth int) string {
		p := name()
		for range depth {
			p += "/" + name()
		}
		return p
	}
	for round := range 200 {
		var entries, dirs, asked []string
		for range 1 + r.IntN(12) {
			entries = append(entries, pathOf(r.IntN(4)))
		}
		for range r.IntN(5) {
			dirs = append(dirs, pathOf(r.IntN(3)))
		}
		if r.IntN(8) == 0 {
			dirs = append(dirs, ".")
		}
		for range 30 {
			asked = append(asked, pathOf(r.IntN(4)))
		}
		under := trackedUnder(entries, dirs)
		for _, rel := range asked {
			if got, want := under[rel], trackedSlow(entries, dirs, rel); got != want {
				t.Fatalf("round %d: entries %q dirs %q: %s tracked = %v, want %v", round, entries, dirs, rel, got, want)
			}
		}
	}
}

// BenchmarkTrackedUnder: building the index for many project directories
// costs the entries, not entries times directories.
func BenchmarkTrackedUnder(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		var entries, dirs []string
		for i := range n {
			d := fmt.Sprintf("agents/a-%d", i)
			dirs = append(dirs, d)
			entries = append(entries, d+"/notes.md")
		}
		b.Run(fmt.Sprint("dirs=", n), func(b *testing.B) {
			for b.Loop() {
				under := trackedUnder(entries, dirs)
				for range n {
					_ = under[".claude/settings.json"]
				}
			}
		})
	}
}
