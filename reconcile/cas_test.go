package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// casConfig is a Claude Code tool agent with one skill of content skill.
func casConfig(skill string, agent bool) string {
	cfg := "package actant\nskills: s: {description: \"S\", content: \"" + skill + "\\n\"}\n" +
		"templates: lead: {version: \"1.0.0\", backend: \"claude-code\", skills: [\"s\"]}\n"
	if agent {
		cfg += "agents: lead: template: \"lead\"\n"
	}
	return cfg
}

// casApply loads cfg into root and applies it; during the apply, edit
// runs right before each file's compare-and-swap.
func casApply(t *testing.T, root, cfg string, edit func(rel string)) *Result {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := schema.LoadDir(root, root+".home") // one machine: one home
	if err != nil {
		t.Fatal(err)
	}
	beforeSwap = edit
	defer func() { beforeSwap = nil }()
	res, err := Apply(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestEditDuringApplyIsKept: a hand edit made to a file while apply runs
// (after the plan read it, before the rename) is never overwritten: the
// file is left, reported as drift, keeps its old records, and the next
// apply reconciles it around the edit. A file deleted-by-prune that was
// edited meanwhile is left too.
func TestEditDuringApplyIsKept(t *testing.T) {
	root := t.TempDir()
	casApply(t, root, casConfig("v1", true), nil)
	claude := filepath.Join(root, "CLAUDE.md")
	skill := filepath.Join(root, ".claude/skills/s/SKILL.md")

	casApply(t, root, casConfig("v2", true), nil)
	if got := readString(t, skill); !strings.Contains(got, "v2") {
		t.Errorf("the skill was not written: %q", got)
	}

	// A description rewrites CLAUDE.md's block; the user edits the file
	// during that apply.
	edited := ""
	cfg := strings.Replace(casConfig("v2", true), `backend: "claude-code"`, `backend: "claude-code", description: "Lead"`, 1)
	res := casApply(t, root, cfg, func(rel string) {
		if rel == "CLAUDE.md" {
			edited = "# My notes\n\n" + readString(t, claude)
			if err := os.WriteFile(claude, []byte(edited), 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	if got := readString(t, claude); got != edited {
		t.Fatalf("the edit made during apply was lost:\n%s", got)
	}
	found := false
	for _, it := range res.Items {
		if it.Path == "CLAUDE.md" {
			found = it.Action == ActDrift && strings.Contains(it.Reason, "edited while apply ran")
		}
	}
	if !found || res.Counts.Drifted != 1 || res.Counts.Changed != 0 {
		t.Fatalf("not reported as drift: %+v %+v", res.Counts, res.Items)
	}

	// The next apply updates the block (still as actctl wrote it) around
	// the user's new text.
	res = casApply(t, root, cfg, nil)
	got := readString(t, claude)
	if res.Counts.Drifted != 0 || !strings.HasPrefix(got, "# My notes\n\n") || !strings.Contains(got, "Lead") {
		t.Fatalf("next apply: %+v\n%s", res.Counts, got)
	}

	// Prune, with the skill edited during it: the skill stays, and the
	// next prune reports it as the user's.
	res = casApply(t, root, casConfig("v2", false), func(rel string) {
		if rel == ".claude/skills/s/SKILL.md" {
			if err := os.WriteFile(skill, []byte("mine now\n"), 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	if got := readString(t, skill); got != "mine now\n" || res.Counts.Drifted != 1 {
		t.Fatalf("a file edited during prune: %q %+v %+v", got, res.Counts, res.Items)
	}
	if got := readString(t, claude); strings.Contains(got, "BEGIN actctl") || !strings.HasPrefix(got, "# My notes") {
		t.Errorf("CLAUDE.md (not edited during the prune) was not pruned to the user's text: %q", got)
	}
	res = casApply(t, root, casConfig("v2", false), nil)
	if got := readString(t, skill); got != "mine now\n" || res.Counts.Drifted != 1 {
		t.Fatalf("the next prune: %q %+v %+v", got, res.Counts, res.Items)
	}
	if res := casApply(t, root, casConfig("v2", false), nil); res.Counts.Changed+res.Counts.Drifted != 0 {
		t.Fatalf("not settled: %+v %+v", res.Counts, res.Items)
	}
}

// TestCreateDuringApplyIsKept: a file the user creates at a path apply
// is creating (after the plan found nothing there, before the rename) is
// never replaced: the rename of a new file does not replace
// (atomicfile.Options.NoReplace); the file is reported as drift and the
// next apply sees it as the user's.
func TestCreateDuringApplyIsKept(t *testing.T) {
	root := t.TempDir()
	skill := filepath.Join(root, ".claude/skills/s/SKILL.md")
	res := casApply(t, root, casConfig("v1", true), func(rel string) {
		if rel == ".claude/skills/s/SKILL.md" {
			if err := os.WriteFile(skill, []byte("mine\n"), 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	if got := readString(t, skill); got != "mine\n" {
		t.Fatalf("the file made during apply was replaced: %q", got)
	}
	if res.Counts.Drifted != 1 {
		t.Fatalf("not reported as drift: %+v %+v", res.Counts, res.Items)
	}
	entries, err := os.ReadDir(filepath.Dir(skill))
	if err != nil || len(entries) != 1 {
		t.Fatalf("left beside it: %v %v", entries, err)
	}
}
