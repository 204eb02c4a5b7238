package schema

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestLocalComponents: dir and file skills are the config's local
// components, as absolute paths; inline skills are not.
func TestLocalComponents(t *testing.T) {
	cfg := mustLoad(t, map[string]string{
		"actant.cue":        "package actant\nskills: {\n\td: dir: \"skills/d\"\n\tf: file: \"f.md\"\n\ti: content: \"x\"\n}\n",
		"skills/d/SKILL.md": "---\ndescription: d\n---\nD\n",
		"f.md":              "F\n",
	})
	dirs, files := cfg.LocalComponents()
	if want := []string{filepath.Join(cfg.Root, "skills", "d")}; !slices.Equal(dirs, want) {
		t.Errorf("dirs = %v, want %v", dirs, want)
	}
	if want := []string{filepath.Join(cfg.Root, "f.md")}; !slices.Equal(files, want) {
		t.Errorf("files = %v, want %v", files, want)
	}
}
