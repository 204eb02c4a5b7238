package model

import (
	"fmt"
	"path"
	"strings"
	"testing"
)

// protectedRef is protected as it was written before it stopped
// allocating (split the lowered path): the reference the fast one must
// match on every input.
func protectedRef(rel string, cueAnywhere bool) string {
	clean := path.Clean(strings.ReplaceAll(rel, `\`, "/"))
	orig, parts := strings.Split(clean, "/"), strings.Split(strings.ToLower(clean), "/")
	for _, p := range parts {
		switch p {
		case ".git":
			return "it is inside .git/, git's own directory"
		case ".actant":
			return "it is inside .actant/, where actctl keeps its state"
		case "cue.mod":
			return "it is inside cue.mod/, the workspace's CUE modules"
		}
	}
	if base := parts[len(parts)-1]; strings.HasSuffix(base, ".cue") && (cueAnywhere || len(parts) == 1) {
		return "it is a *.cue file, which actctl loads as configuration"
	}
	if strings.HasPrefix(parts[0], "actant.") {
		return fmt.Sprintf("%s at the root is actctl's own file: every actant.* name there is kept for actctl", orig[0])
	}
	return ""
}

var protectedSeeds = []string{
	"", ".", "/", "a", ".claude/skills/x/SKILL.md", "CLAUDE.md", "actant.cue", "ACTANT.CUE",
	"Actant.Lock", "actant.owned", "sub/actant.cue", "x.cue", "skills/ex/example.CUE",
	".git", ".GIT/config", "a/.Git/b", ".actant/state.json", "a/.ACTANT", "cue.mod/module.cue",
	"a/CUE.MOD/x", `a\.git\b`, "a//b/../.git", "./actant.x", "../.git/x", "../actant.cue",
	// Non-ASCII: lowered as before, not folded (the Kelvin sign lowers to
	// k; the long s and a dotted capital I do not lower to ASCII).
	"\u212a.cue", "ACTANT\u212a.cue", ".G\u0130T/x", "cue.mod\u017f", "\u017fub/x.cue", "Ａctant.cue",
	"act\u212ant.x", ".gi\u0307t", "\xff/.git", "actant.\xff",
}

func TestProtectedMatchesReference(t *testing.T) {
	for _, rel := range protectedSeeds {
		for _, any := range []bool{false, true} {
			if got, want := protected(rel, any), protectedRef(rel, any); got != want {
				t.Errorf("protected(%q, %v) = %q, want %q", rel, any, got, want)
			}
		}
		if got, want := ProtectedDir(rel), protectedDirRef(rel); got != want {
			t.Errorf("ProtectedDir(%q) = %q, want %q", rel, got, want)
		}
	}
}

// protectedDirRef is ProtectedDir as it was: reserved parts, then the
// root's actant.* name (no *.cue rule).
func protectedDirRef(dir string) string {
	if why := protectedRef(dir, false); why != "it is a *.cue file, which actctl loads as configuration" {
		return why
	}
	clean := path.Clean(strings.ReplaceAll(dir, `\`, "/"))
	first, _, _ := strings.Cut(clean, "/")
	if strings.HasPrefix(strings.ToLower(first), "actant.") {
		return fmt.Sprintf("%s at the root is actctl's own file: every actant.* name there is kept for actctl", first)
	}
	return ""
}

func FuzzProtected(f *testing.F) {
	for _, s := range protectedSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		for _, any := range []bool{false, true} {
			if got, want := protected(rel, any), protectedRef(rel, any); got != want {
				t.Fatalf("protected(%q, %v) = %q, want %q", rel, any, got, want)
			}
		}
		if got, want := ProtectedDir(rel), protectedDirRef(rel); got != want {
			t.Fatalf("ProtectedDir(%q) = %q, want %q", rel, got, want)
		}
	})
}

// TestProtectedInWorkspaceAllocatesNothing: materialize checks every entry
// of an agent whose workDir is the root (607 in the benchmark job); an
// unprotected path costs no allocation.
func TestProtectedInWorkspaceAllocatesNothing(t *testing.T) {
	n := testing.AllocsPerRun(100, func() {
		if why := ProtectedInWorkspace(".claude/skills/skill-000/SKILL.md"); why != "" {
			t.Fatal(why)
		}
	})
	if n != 0 {
		t.Fatalf("ProtectedInWorkspace allocates %v times per call", n)
	}
}
