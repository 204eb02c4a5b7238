package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestDiffShowsDrift: diff of hand edits (a managed block, an owned file)
// shows each as the diff of what apply --force would restore, counts it
// ("changes": true, "drifted"), exits 1 and writes nothing; status
// --exit-code exits 1 on it for scripts, and both exit 0 once apply
// --force has restored the files.
func TestDiffShowsDrift(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"skills/s/SKILL.md": "---\ndescription: S\n---\nDo s.\n"})
	writeConfig(t, dir, `package actant

prompts: p: content: "Be careful."
skills: s: dir: "skills/s"
templates: t: {backend: "claude-code", prompts: ["p"], skills: ["s"]}
agents: a: template: "t"
`)
	mustApply(t, dir, home)
	claude, skill := filepath.Join(dir, "CLAUDE.md"), filepath.Join(dir, ".claude/skills/s/SKILL.md")
	writeFiles(t, dir, map[string]string{
		"CLAUDE.md":                 strings.Replace(read(t, claude), "Be careful.", "Be bold.", 1),
		".claude/skills/s/SKILL.md": read(t, skill) + "my note\n",
	})
	before := map[string]string{"CLAUDE.md": read(t, claude), "skill": read(t, skill), "state": read(t, filepath.Join(dir, ".actant/state.json"))}

	r := actctl(t, dir, home, "diff")
	if r.Code != 1 {
		t.Fatalf("diff: exit %d, want 1\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{"--- a/CLAUDE.md", "-Be bold.", "+Be careful.", "--- a/.claude/skills/s/SKILL.md", "-my note"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("diff lacks %q:\n%s", want, r.Stdout)
		}
	}
	if !strings.Contains(r.Stderr, "apply --force") {
		t.Errorf("diff does not say how to restore:\n%s", r.Stderr)
	}

	r = actctl(t, dir, home, "diff", "-o", "json")
	var out struct {
		Changes bool `json:"changes"`
		Drifted int  `json:"drifted"`
		Files   []struct {
			Path  string `json:"path"`
			Drift bool   `json:"drift"`
			Diff  string `json:"diff"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || r.Code != 1 {
		t.Fatalf("diff -o json: exit %d, %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	if !out.Changes || out.Drifted != 2 || len(out.Files) != 2 {
		t.Fatalf("diff -o json: %+v", out)
	}
	for _, f := range out.Files {
		if !f.Drift || !strings.Contains(f.Diff, "--- a/"+f.Path) {
			t.Errorf("diff -o json file %+v", f)
		}
	}

	r = actctl(t, dir, home, "status", "--exit-code")
	if r.Code != 1 || !strings.Contains(r.Stdout, "OutOfSync") {
		t.Errorf("status --exit-code on drift: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, dir, home, "status"); r.Code != 0 {
		t.Errorf("status without --exit-code: exit %d\n%s", r.Code, r.Stderr)
	}
	for what, p := range map[string]string{"CLAUDE.md": claude, "skill": skill, "state": filepath.Join(dir, ".actant/state.json")} {
		if got := read(t, p); got != before[what] {
			t.Errorf("%s was written by diff or status", what)
		}
	}
	mustApply(t, dir, home, "--force")
	if r := actctl(t, dir, home, "diff"); r.Code != 0 || r.Stdout != "" {
		t.Errorf("diff after apply --force: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if r := actctl(t, dir, home, "status", "--exit-code"); r.Code != 0 {
		t.Errorf("status --exit-code after apply --force: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
