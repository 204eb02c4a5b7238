package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadSkillDirThroughLinks: a skill directory that is a link, or lies
// under one, is read where it leads, its files named under the
// configured path; SKILL.md may be a link to a file; a link among the
// other files is still refused (issue #20 item 4).
func TestReadSkillDirThroughLinks(t *testing.T) {
	base := writeWorkspace(t, map[string]string{
		"shared/tool/SKILL.md":   "---\nname: tool\n---\nBody.\n",
		"shared/tool/run.sh":     "echo\n",
		"shared/tool/ref/doc.md": "Doc.\n",
		"notes.md":               "---\nname: notes\n---\nNotes.\n",
		"own/extra.md":           "Extra.\n",
		"bad/SKILL.md":           "Bad.\n",
	})
	for link, target := range map[string]string{
		"skills":        "shared",
		"tool":          "shared/tool",
		"own/SKILL.md":  "../notes.md",
		"bad/linked.md": "../notes.md",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{"tool", "skills/tool"} {
		s, err := ReadSkillDir(filepath.Join(base, dir))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if len(s.Files) != 2 || string(s.Files["run.sh"]) != "echo\n" || string(s.Files["ref/doc.md"]) != "Doc.\n" {
			t.Errorf("%s: files %v", dir, s.Files)
		}
		if s.Source != filepath.Join(base, dir, "SKILL.md") || !strings.Contains(s.Content, "Body.") {
			t.Errorf("%s: source %s, content %q", dir, s.Source, s.Content)
		}
	}
	s, err := ReadSkillDir(filepath.Join(base, "own"))
	if err != nil || !strings.Contains(s.Content, "Notes.") || string(s.Files["extra.md"]) != "Extra.\n" {
		t.Errorf("linked SKILL.md: %+v, %v", s, err)
	}
	if _, err := ReadSkillDir(filepath.Join(base, "bad")); err == nil || !strings.Contains(err.Error(), filepath.Join(base, "bad", "linked.md")+": symlinks are not allowed") {
		t.Errorf("a link among the files: %v", err)
	}
}
