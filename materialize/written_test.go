package materialize

import (
	"path"
	"testing"
)

// TestWrittenMatchesMap: written answers for one path what the map of
// every written path and directory (the code it replaced) held, in every
// order of entries: a file and a directory of one name, nested entries,
// prefixes that are not parents.
func TestWrittenMatchesMap(t *testing.T) {
	entries := []Entry{
		{Path: "a", Mode: ModeFile}, {Path: "a/b", Mode: ModeFile}, {Path: ".claude/skills/x/SKILL.md", Mode: ModeFile},
		{Path: ".claude/skills/y", Mode: ModeDir}, {Path: "ab/c", Mode: ModeBlock}, {Path: ".actant/logs", Mode: ModeDir},
	}
	asked := []string{"a", "a/b", "ab", "ab/c", "b", ".claude", ".claude/skills", ".claude/skills/x", ".claude/skills/y",
		".claude/skills/x/SKILL.md", ".claude/skills/x/SKILL.m", ".claud", MetaDir, ".actant/logs", ".", "/", "a/"}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5}, {5, 4, 3, 2, 1, 0}, {1, 0, 3, 2, 5, 4}} {
		rd := &renderer{}
		for _, i := range order {
			rd.slots = append(rd.slots, slot{e: entries[i]})
		}
		ref := map[string]bool{MetaDir: true}
		for _, s := range rd.slots {
			ref[s.e.Path] = s.e.Mode == ModeDir
			for d := path.Dir(s.e.Path); d != "." && d != "/"; d = path.Dir(d) {
				ref[d] = true
			}
		}
		for _, rel := range asked {
			wantDir, wantOK := ref[rel]
			if isDir, ok := rd.written(rel); isDir != wantDir || ok != wantOK {
				t.Errorf("order %v: written(%q) = %v, %v; want %v, %v", order, rel, isDir, ok, wantDir, wantOK)
			}
		}
	}
}
