package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/reconcile"
)

// ownedConfig has a permissive Claude Code agent (CLAUDE.md block, a
// skill, bypassPermissions in .claude/settings.json) and a Codex agent
// (AGENTS.md block, a skill, .codex/config.toml keys); skill is the
// content of their shared skill.
func ownedConfig(skill string, agents bool) string {
	cfg := `package actant
skills: "go-testing": {description: "Tests", content: "` + skill + `\n"}
templates: {
	lead: {version: "1.0.0", backend: "claude-code", skills: ["go-testing"], permissions: "permissive"}
	fixer: {version: "1.0.0", backend: "codex", skills: ["go-testing"]}
}
`
	if agents {
		cfg += "agents: {lead: template: \"lead\", fixer: template: \"fixer\"}\n"
	}
	return cfg
}

// cloneTree copies a checkout as git would clone it: every file but the
// machine-local .actant/ (which a repository ignores), into a new place.
func cloneTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	pullTree(t, src, dst)
	return dst
}

// pullTree copies src's files except .actant/ over dst: a git pull of a
// teammate's commit.
func pullTree(t *testing.T, src, dst string) {
	t.Helper()
	files := map[string]string{}
	for _, f := range listFiles(t, src) {
		if strings.HasPrefix(f, reconcile.MetaDir+"/") {
			continue
		}
		files[f] = read(t, filepath.Join(src, f))
	}
	writeFiles(t, dst, files)
}

// TestFreshCloneKnowsWhatIsActctls: the record of what actctl owns
// (actant.owned, committed beside the files) travels with a clone, so a
// fresh clone behaves as the original checkout: nothing to do, diff sees
// a committed file that differs from what apply would write, and removing
// the agents prunes their files, blocks and keys (no bypassPermissions,
// no 0-byte AGENTS.md left behind).
func TestFreshCloneKnowsWhatIsActctls(t *testing.T) {
	orig := t.TempDir()
	writeConfig(t, orig, ownedConfig("# Go testing", true))
	mustApply(t, orig, filepath.Join(t.TempDir(), "home"))
	owned := read(t, filepath.Join(orig, reconcile.OwnedFile))
	if strings.Contains(owned, orig) || !strings.Contains(owned, `"dir": "."`) {
		t.Fatalf("%s must hold paths relative to the root only:\n%s", reconcile.OwnedFile, owned)
	}

	clone := cloneTree(t, orig)
	home := filepath.Join(t.TempDir(), "home") // another machine
	if r := actctl(t, clone, home, "apply"); r.Code != 0 || strings.TrimSpace(r.Stdout) != "no changes" || r.Stderr != "" {
		t.Fatalf("apply in a fresh clone: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	if got := read(t, filepath.Join(clone, reconcile.OwnedFile)); got != owned {
		t.Errorf("apply in the clone rewrote %s:\n%s", reconcile.OwnedFile, got)
	}
	if r := actctl(t, clone, home, "diff"); r.Code != 0 {
		t.Fatalf("diff in a fresh clone: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}

	// A committed skill that is stale against its source: diff says so.
	writeConfig(t, clone, ownedConfig("# Go testing, revised", true))
	if r := actctl(t, clone, home, "diff"); r.Code != 1 || !strings.Contains(r.Stdout, "+# Go testing, revised") {
		t.Fatalf("diff of a stale committed skill: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	writeConfig(t, clone, ownedConfig("# Go testing", true))
	// A committed skill edited by hand: drift, and diff exits 1.
	skill := filepath.Join(clone, ".claude/skills/go-testing/SKILL.md")
	before := read(t, skill)
	writeFiles(t, clone, map[string]string{".claude/skills/go-testing/SKILL.md": before + "edited\n"})
	if r := actctl(t, clone, home, "diff"); r.Code != 1 || !strings.Contains(r.Stderr, "drift: .claude/skills/go-testing/SKILL.md") {
		t.Fatalf("diff of a hand-edited committed skill: %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	writeFiles(t, clone, map[string]string{".claude/skills/go-testing/SKILL.md": before})

	// Removing the agents in the clone prunes exactly as in the original.
	writeConfig(t, clone, ownedConfig("# Go testing", false))
	mustApply(t, clone, home)
	if got := listFiles(t, clone); strings.Join(got, ",") != "actant.cue" {
		t.Errorf("prune in a fresh clone left: %v", got)
	}
}

// TestPullKeepsProvenance: after a pull of a teammate's apply, this
// machine's state holds older digests than the committed record; the
// teammate's output is still actctl's (updated, not taken for a hand
// edit) when the config changes again.
func TestPullKeepsProvenance(t *testing.T) {
	a, homeA := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, a, ownedConfig("v1", true))
	mustApply(t, a, homeA)
	b, homeB := cloneTree(t, a), filepath.Join(t.TempDir(), "home")
	mustApply(t, b, homeB) // B's own state, with v1's digests

	writeConfig(t, a, ownedConfig("v2", true))
	mustApply(t, a, homeA)
	pullTree(t, a, b)

	writeConfig(t, b, ownedConfig("v3", true))
	res := mustApply(t, b, homeB)
	if res.Counts.Drifted != 0 || res.Counts.Updated != 2 {
		t.Fatalf("apply after a pull: %+v %+v", res.Counts, res.Items)
	}
	if got := read(t, filepath.Join(b, ".claude/skills/go-testing/SKILL.md")); !strings.Contains(got, "v3") {
		t.Errorf("skill not updated: %q", got)
	}
	if res := mustApply(t, b, homeB); res.Counts.Changed != 0 {
		t.Errorf("second apply: %+v", res.Counts)
	}
}

const leadOnly = `package actant
templates: lead: {version: "1.0.0", backend: "claude-code"}
agents: lead: template: "lead"
`

// TestForeignMarkersAreTheUsers: a CLAUDE.md that already holds actctl's
// markers for an agent, which actctl has no record of writing (an example
// in a code fence, a copy from another repository), is the user's: a
// conflict, nothing written.
func TestForeignMarkersAreTheUsers(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	files := map[string]string{"CLAUDE.md": "# Rules\n\nWhat actctl writes:\n\n```\n<!-- BEGIN actctl agent=lead -->\nexample\n<!-- END actctl agent=lead -->\n```\n"}
	writeFiles(t, dir, files)
	writeConfig(t, dir, leadOnly)
	res, r := applyJSON(t, dir, home)
	if r.Code != 1 || res.Counts.Conflicts != 1 || res.Counts.Changed != 0 || len(res.Items) != 1 ||
		!strings.Contains(r.Stderr, "CLAUDE.md: agent lead (workDirConflict=append): holds a block between") {
		t.Fatalf("apply over foreign markers: %d %+v %+v\n%s", r.Code, res.Counts, res.Items, r.Stderr)
	}
	assertUnchanged(t, dir, files)
}

// TestKeptBlockStaysTheUsers: a block the user edited is kept as the
// user's when its agent is removed; when the agent comes back, that
// block is still the user's: a conflict, never overwritten.
func TestKeptBlockStaysTheUsers(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, leadOnly)
	mustApply(t, dir, home)
	claude := filepath.Join(dir, "CLAUDE.md")
	edited := strings.Replace(read(t, claude), "## lead", "## lead, with my notes", 1)
	writeFiles(t, dir, map[string]string{"CLAUDE.md": edited})
	writeConfig(t, dir, "package actant\n")
	if res := mustApply(t, dir, home); res.Counts.Drifted != 1 {
		t.Fatalf("prune of an edited block: %+v %+v", res.Counts, res.Items)
	}
	writeConfig(t, dir, leadOnly)
	res, r := applyJSON(t, dir, home)
	if r.Code != 1 || res.Counts.Conflicts != 1 || !strings.Contains(r.Stderr, "no record of writing") {
		t.Fatalf("agent back over its kept block: %d %+v\n%s", r.Code, res.Counts, r.Stderr)
	}
	if got := read(t, claude); got != edited {
		t.Errorf("the user's block was changed:\n%s", got)
	}
}

// TestDamagedStateSaysWhatToDo: a state.json of this user's (sealed)
// that does not parse is named, with what it is and what deleting it
// means; nothing is written.
func TestDamagedStateSaysWhatToDo(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, leadOnly)
	mustApply(t, dir, home)
	state := filepath.Join(dir, ".actant", "state.json")
	damaged := string(sealRecord(t, home, "actctl state", []byte("{not json}")))
	writeFiles(t, dir, map[string]string{".actant/state.json": damaged, "CLAUDE.md": "mine\n"})
	r := actctl(t, dir, home, "apply")
	if r.Code != 1 || !strings.Contains(r.Stderr, state+" is damaged") || !strings.Contains(r.Stderr, "delete it and apply again") ||
		!strings.Contains(r.Stderr, "treated as yours") {
		t.Fatalf("apply with a damaged state: %d\n%s", r.Code, r.Stderr)
	}
	if read(t, filepath.Join(dir, "CLAUDE.md")) != "mine\n" || read(t, state) != damaged {
		t.Errorf("something was written")
	}
	// The committed record, damaged (a bad merge): restore it from git.
	owned := filepath.Join(dir, reconcile.OwnedFile)
	writeFiles(t, dir, map[string]string{reconcile.OwnedFile: "<<<<<<< HEAD\n"})
	os.Remove(state)
	r = actctl(t, dir, home, "apply")
	if r.Code != 1 || !strings.Contains(r.Stderr, owned) || !strings.Contains(r.Stderr, "git checkout -- "+reconcile.OwnedFile) {
		t.Fatalf("apply with a damaged %s: %d\n%s", reconcile.OwnedFile, r.Code, r.Stderr)
	}
	if read(t, filepath.Join(dir, "CLAUDE.md")) != "mine\n" {
		t.Errorf("something was written")
	}
}

// TestMetaDirIsAFile: .actant existing as a file is said as such.
func TestMetaDirIsAFile(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, leadOnly)
	writeFiles(t, dir, map[string]string{".actant": "notes\n"})
	for _, cmd := range []string{"apply", "status", "diff"} {
		r := actctl(t, dir, home, cmd)
		if r.Code == 0 || !strings.Contains(r.Stderr, filepath.Join(dir, ".actant")+" is a file, where actctl keeps its directory") ||
			strings.Contains(r.Stderr, "not a directory") {
			t.Errorf("%s with .actant a file: %d\n%s", cmd, r.Code, r.Stderr)
		}
	}
	assertNotWritten(t, dir, "apply", "CLAUDE.md", reconcile.OwnedFile)
	if read(t, filepath.Join(dir, ".actant")) != "notes\n" {
		t.Errorf(".actant changed")
	}
}

// TestConflictReportsNoWrites: -o json of an apply that conflicted
// reports zero changes, only the findings.
func TestConflictReportsNoWrites(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, strings.Replace(ownedConfig("x", true), `fixer: template: "fixer"`, `fixer: {template: "fixer", workDirConflict: "error"}`, 1))
	writeFiles(t, dir, map[string]string{"AGENTS.md": "mine\n"})
	res, r := applyJSON(t, dir, home)
	if r.Code != 1 || res.Counts.Conflicts != 1 || res.Counts.Changed != 0 || res.Counts.Created != 0 || res.StateWritten {
		t.Fatalf("conflicted apply: %d %+v\n%s", r.Code, res.Counts, r.Stderr)
	}
	for _, it := range res.Items {
		if it.Action != reconcile.ActConflict {
			t.Errorf("item of a run that wrote nothing: %+v", it)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "CLAUDE.md")); err == nil {
		t.Errorf("CLAUDE.md written")
	}
}
