package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestClaudeRulesE2E: a Claude Code agent's skill with paths is written
// as a path-scoped rule, .claude/rules/NAME.md with a paths list in its
// frontmatter (docs/formats.md, Claude Code memory), not as a skill with
// a warning that its paths are not written; a skill without paths stays
// a skill; the user's own rule stays, a re-apply writes nothing, the
// prune leaves the user's bytes (issue #23, path-scoped rules).
func TestClaudeRulesE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
skills: {
	"go-style": {description: "Go style", content: "Wrap errors with %w.", paths: ["**/*.go", "go.mod", "cmd/\"q\"/*.go"]}
	review: {description: "Review", content: "Review carefully."}
}
templates: c: {backend: "claude-code", skills: ["go-style", "review"]}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".claude/rules/mine.md": "---\npaths:\n  - \"src/**\"\n---\nmine\n"},
		with:    cfg(`c: template: "c"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			want := "---\npaths:\n  - \"**/*.go\"\n  - \"go.mod\"\n  - \"cmd/\\\"q\\\"/*.go\"\n---\n\nWrap errors with %w.\n"
			if got := read(t, filepath.Join(dir, ".claude/rules/go-style.md")); got != want {
				t.Errorf("claude rule:\n%s\nwant\n%s", got, want)
			}
			if got := read(t, filepath.Join(dir, ".claude/skills/review/SKILL.md")); !strings.Contains(got, "Review carefully.") {
				t.Errorf("claude skill without paths:\n%s", got)
			}
			assertNotWritten(t, dir, "a skill with paths", ".claude/skills/go-style")
			if out := r.Stdout + r.Stderr; strings.Contains(out, "are not written") {
				t.Errorf("a warning that the paths are not written:\n%s", out)
			}
		},
	})
}

// TestImportClaudeRules: import takes Claude Code's path-scoped rules
// (.claude/rules/NAME.md with a paths list) that apply writes back byte
// for byte as skills with paths; the round trip holds (apply writes
// nothing, diff exits 0, every byte kept); a rule with a key actctl does
// not write, without paths, or in a subdirectory, is left with its reason
// (issue #23 item 18).
func TestImportClaudeRules(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"CLAUDE.md":                  "Be careful.\n",
		".claude/rules/go.md":        "---\npaths:\n  - \"**/*.go\"\n  - \"go.mod\"\n---\n\nWrap errors.\n",
		".claude/rules/always.md":    "Always test.\n",
		".claude/rules/described.md": "---\ndescription: Docs\npaths:\n  - \"docs/**\"\n---\n\nWrite plainly.\n",
		".claude/rules/front/ui.md":  "---\npaths:\n  - \"web/**\"\n---\n\nUse the design system.\n",
	})
	out := roundTrip(t, dir)
	if !slices.Contains(items(out.Taken), "claude-code rule go") {
		t.Errorf("taken %q, want claude-code rule go", items(out.Taken))
	}
	for _, want := range []string{"claude-code rule always", "claude-code rule described", "claude-code rule front"} {
		if !slices.Contains(items(out.Left), want) {
			t.Errorf("left %q, want %q", items(out.Left), want)
		}
	}
	if s := `paths: ["**/*.go", "go.mod"]`; !strings.Contains(out.Config, s) {
		t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
	}
}

// TestGetSkillsPaths: get skills -o json shows a skill's paths (the
// files it is about, written as a path-scoped rule where the tool has
// them), and no paths key for a skill without them; docs/json.md's row
// says so (issue #23, path-scoped rules).
func TestGetSkillsPaths(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `package actant
skills: {
	"go-style": {description: "Go style", content: "Wrap errors.", paths: ["**/*.go", "go.mod"]}
	review: {description: "Review", content: "Review carefully."}
}
`)
	r := actctl(t, dir, "", "-o", "json", "get", "skills")
	if r.Code != 0 {
		t.Fatalf("get skills: exit %d\n%s", r.Code, r.Stderr)
	}
	checkJSONOutput(t, "get skills", r.Stdout)
	var got []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"name": "go-style", "description": "Go style", "files": []any{}, "paths": []any{"**/*.go", "go.mod"}},
		{"name": "review", "description": "Review", "files": []any{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("get skills -o json:\n%v\nwant\n%v", got, want)
	}
}
