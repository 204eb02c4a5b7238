package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/reconcile"
)

// gitignoreConfig declares three tool agents in the workspace root (three
// backends, so only the .gitignore block is shared) and lists each agent's
// own directory in the .gitignore block, so the agents' lines differ.
func gitignoreConfig(agents ...string) string {
	cfg := `package actant

archetypes: tool: gitignore: ["/.actant/", "/CLAUDE.md", "/AGENTS.md"]
templates: {
	a: {backend: "claude-code"}
	b: {backend: "codex"}
	c: {backend: "gemini"}
}
agents: {
`
	for _, a := range agents {
		cfg += "\t" + a + ": template: \"" + a + "\"\n"
	}
	return cfg + "}\n"
}

// One block for N agents and its prune, and markers actctl has no record
// of, are scripts: testdata/script/gitignore_*.txtar.

// TestGitignoreBlocksMigrate: a workspace applied by an actctl that wrote
// one .gitignore block per agent (its records say so) moves to the one
// block per file on the next apply, without a conflict and without losing
// a line of the user's: between the blocks, or added inside one (that
// block is then the user's, kept where it is).
func TestGitignoreBlocksMigrate(t *testing.T) {
	for _, tc := range []struct {
		name, bBody, want string
		drift             bool
	}{
		{"clean", "/.actant/\n/AGENTS.md\n",
			"node_modules/\nmine/\n\n# BEGIN actctl\n/.actant/\n/CLAUDE.md\n/AGENTS.md\n# END actctl\n", false},
		{"edited", "/.actant/\n/AGENTS.md\nmy-own-line\n",
			"node_modules/\nmine/\n\n# BEGIN actctl agent=b\n/.actant/\n/AGENTS.md\nmy-own-line\n# END actctl agent=b\n\n# BEGIN actctl\n/.actant/\n/CLAUDE.md\n/AGENTS.md\n# END actctl\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
			writeFiles(t, dir, map[string]string{".gitignore": "node_modules/\n"})
			writeConfig(t, dir, gitignoreConfig("a", "b"))
			mustApply(t, dir, home)
			// What the older actctl left: a block per agent, each recorded
			// by its agent, the user's line between them.
			old := "node_modules/\n\n# BEGIN actctl agent=a\n/.actant/\n/CLAUDE.md\n# END actctl agent=a\nmine/\n\n" +
				"# BEGIN actctl agent=b\n" + tc.bBody + "# END actctl agent=b\n"
			writeFiles(t, dir, map[string]string{".gitignore": old})
			oldBlocks(t, dir, home, map[string]string{"a": "/.actant/\n/CLAUDE.md\n", "b": "/.actant/\n/AGENTS.md\n"})

			res, r := applyJSON(t, dir, home)
			if r.Code != 0 || res.Counts.Conflicts != 0 {
				t.Fatalf("apply: exit %d, %d conflicts\n%s%s", r.Code, res.Counts.Conflicts, r.Stdout, r.Stderr)
			}
			if got := read(t, filepath.Join(dir, ".gitignore")); got != tc.want {
				t.Fatalf(".gitignore:\n got %q\nwant %q", got, tc.want)
			}
			if got := strings.Contains(r.Stdout, "kept as the user's"); got != tc.drift {
				t.Errorf("apply says the edited block is kept as the user's: %v, want %v\n%s", got, tc.drift, r.Stdout)
			}
			if res := mustApply(t, dir, home); res.Counts.Changed != 0 {
				t.Errorf("second apply changed %d files: %+v", res.Counts.Changed, res.Items)
			}
			if r := actctl(t, dir, home, "diff"); r.Code != 0 {
				t.Errorf("diff after the migration: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
		})
	}
}

// oldBlocks rewrites the state of the workspace at dir as an actctl that
// wrote one .gitignore block per agent recorded it: each agent's block
// (bodies by agent), its separator a blank line, no file digest.
func oldBlocks(t *testing.T, dir, home string, bodies map[string]string) {
	t.Helper()
	p := filepath.Join(dir, ".actant", "state.json")
	st, err := reconcile.WorkspaceState(dir, home)
	if err != nil {
		t.Fatal(err)
	}
	for agent, body := range bodies {
		a := st.Agents[agent]
		if a == nil {
			t.Fatalf("no agent %s in the state", agent)
		}
		found := false
		for i := range a.Entries {
			e := &a.Entries[i]
			if e.Path != ".gitignore" {
				continue
			}
			h := sha256.Sum256([]byte(body))
			e.Shared, e.SHA256, e.Sep, e.FileSHA, e.Created = false, hex.EncodeToString(h[:]), "\n", "", false
			found = true
		}
		if !found {
			t.Fatalf("agent %s records no .gitignore block", agent)
		}
	}
	if err := os.WriteFile(p, sealRecord(t, home, "actctl state", st.Encode()), 0o644); err != nil {
		t.Fatal(err)
	}
}
