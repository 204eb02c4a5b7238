package main

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// The bad configs that validate and apply refuse, each with its message
// and nothing written, are scripts: testdata/script/workdir_refused_*,
// config_mistake_* and prompt_placeholder_*.txtar.

// TestHubAgentWorkDirE2E: an agent whose template comes from a hub has
// its workDir checked once the hub is read: a tool template's workDir
// that does not exist is refused (and not created), a workDir given to an
// instance archetype's agent is refused; an existing one is used (issue
// #22 item 8).
func TestHubAgentWorkDirE2E(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file:// URL of a temporary path")
	}
	repo := filepath.Join(t.TempDir(), "hub")
	writeFiles(t, repo, map[string]string{
		"actant.json":             `{"name":"h","version":"1.0.0"}`,
		"templates/reviewer.json": `{"name":"reviewer","version":"1.0.0","archetype":"tool","backend":{"type":"claude-code"}}`,
		"templates/mirror.json":   `{"name":"mirror","version":"1.0.0","archetype":"repo","backend":{"type":"claude-code"}}`,
	})
	hubGit(t, repo, "init", "-q", "-b", "main")
	hubGit(t, repo, "add", "-A")
	hubGit(t, repo, "commit", "-q", "-m", "one")
	head := "package actant\n\nhub: team: url: \"file://" + repo + "\"\n"
	home := t.TempDir()
	for _, tc := range []struct{ agent, want string }{
		{`agents: rev: {template: "team@reviewer", workDir: "srcc"}`,
			`actctl: ROOT/actant.cue:4:51: agents.rev.workDir: workDir ROOT/srcc does not exist; actctl does not create it (did you mean "src"?)` + "\n"},
		{`agents: mir: {template: "team@mirror", workDir: "src"}`,
			`actctl: ROOT/actant.cue:4:49: agents.mir.workDir: workDir is only used by archetypes whose workspace is "project"; "mir" (archetype repo) lives in $ACTANT_HOME/instances/mir` + "\n"},
	} {
		base := t.TempDir()
		dir := filepath.Join(base, "ws")
		writeFiles(t, dir, map[string]string{"actant.cue": head + tc.agent + "\n", "src/main.go": "package main\n"})
		// The hub is fetched into the cache first; only then the agent
		// can be checked.
		before := listFiles(t, base)
		for _, args := range [][]string{{"validate"}, {"apply"}} {
			r := actctl(t, dir, home, args...)
			want := strings.ReplaceAll(tc.want, "ROOT", dir)
			if r.Code != 1 || !strings.HasSuffix(r.Stderr, want) {
				t.Errorf("%v: exit %d, stderr:\n%s\nwant it to end with:\n%s", args, r.Code, r.Stderr, want)
			}
			if after := listFiles(t, base); !slices.Equal(before, after) {
				t.Errorf("%v wrote files: %v", args, after)
			}
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"actant.cue": head + `agents: rev: {template: "team@reviewer", workDir: "src"}` + "\n", "src/main.go": "package main\n"})
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s", r.Code, r.Stderr)
	}
	assertNotWritten(t, dir, "apply", "CLAUDE.md")
	if _, err := os.Stat(filepath.Join(dir, "src", "CLAUDE.md")); err != nil {
		t.Errorf("the agent's file in its workDir: %v", err)
	}
}
