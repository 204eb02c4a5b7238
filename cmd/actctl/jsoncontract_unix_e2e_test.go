//go:build unix

package main

import (
	"path/filepath"
	"testing"
)

// TestJSONContractHub: hub sync, update and ls -o json over a local
// repository in the actant-hub layout, checked against docs/json.md as
// TestJSONContract does (issue #22 item 13).
func TestJSONContractHub(t *testing.T) {
	repo := filepath.Join(t.TempDir(), "hub")
	writeFiles(t, repo, map[string]string{
		"actant.json":             `{"name":"h","version":"1.0.0"}`,
		"prompts/sys.json":        `{"name":"sys","content":"You review."}`,
		"templates/reviewer.json": `{"name":"reviewer","version":"1.0.0","archetype":"tool","backend":{"type":"claude-code"},"domainContext":{"prompts":["sys"]}}`,
	})
	hubGit(t, repo, "init", "-q", "-b", "main")
	hubGit(t, repo, "add", "-A")
	hubGit(t, repo, "commit", "-q", "-m", "one")
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, "package actant\nhub: team: {url: \"file://"+repo+"\", ref: branch: \"main\"}\nagents: rev: template: \"team@reviewer\"\n")
	for _, tc := range []struct {
		doc  string
		args []string
	}{
		{"hub sync", []string{"hub", "sync"}},
		{"hub update", []string{"hub", "update"}},
		{"hub ls", []string{"hub", "ls"}},
	} {
		r := actctl(t, dir, home, append([]string{"-o", "json"}, tc.args...)...)
		if r.Code != 0 {
			t.Errorf("%s: exit %d\n%s", tc.args, r.Code, r.Stderr)
			continue
		}
		checkJSONOutput(t, tc.doc, r.Stdout)
	}
}
