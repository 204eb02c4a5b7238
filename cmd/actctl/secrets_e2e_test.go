//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingSecretsWarned: task and up say once, at start, which
// variables actant.cue names for their agents are not set (names only,
// never a value; a variable with a default is no secret), and run on:
// those an MCP server uses in a warning, those only deploy.secretKeys
// lists (a backend's key, which a backend logged in here does without:
// an OAuth user) in a note. Before, the keys were warned of as missing.
func TestMissingSecretsWarned(t *testing.T) {
	root, home := taskWorkspace(t)
	f, err := os.OpenFile(filepath.Join(root, "actant.cue"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`deploy: secretKeys: ["ACTCTL_TEST_SECRET_GONE", "ACTCTL_TEST_SECRET_SET", "ACTCTL_TEST_SECRET_ALSO_GONE"]
mcpServers: tracker: {command: "true", env: {T: "${ACTCTL_TEST_SECRET_MCP}", D: "${ACTCTL_TEST_SECRET_DEFAULT:-x}"}}
templates: emp: mcpServers: ["tracker"]
`)
	f.Close()
	t.Setenv("ACTCTL_TEST_SECRET_SET", "value-never-printed")
	warn := "actctl: warning: not set in this environment: ACTCTL_TEST_SECRET_MCP (actant.cue names them for triage: MCP servers or hub tokens); the agents start without them\n"
	note := "actctl: note: deploy.secretKeys lists ACTCTL_TEST_SECRET_ALSO_GONE, ACTCTL_TEST_SECRET_GONE, not set in this environment: a backend that reads its key from there starts unauthenticated unless it has a login of its own here\n"
	r := actctl(t, root, home, "task", "triage")
	if r.Code != 0 || strings.Count(r.Stderr, warn) != 1 || strings.Count(r.Stderr, note) != 1 || strings.Count(r.Stderr, "SECRET_GONE") != 1 ||
		strings.Contains(r.Stderr, "value-never-printed") || strings.Contains(r.Stderr, "SECRET_SET") || strings.Contains(r.Stderr, "SECRET_DEFAULT") {
		t.Errorf("task: exit %d, want one warning %q and one note %q:\n%s", r.Code, warn, note, r.Stderr)
	}
	p := startUp(t, root, home, "triage")
	p.waitLine(`^actctl: warning: not set in this environment: ACTCTL_TEST_SECRET_MCP \(actant.cue names them for triage:`)
	p.cmd.Process.Signal(os.Interrupt)
	p.cmd.Wait()

	t.Setenv("ACTCTL_TEST_SECRET_GONE", "")
	t.Setenv("ACTCTL_TEST_SECRET_ALSO_GONE", "x")
	t.Setenv("ACTCTL_TEST_SECRET_MCP", "x")
	if r := actctl(t, root, home, "task", "triage"); r.Code != 0 || strings.Contains(r.Stderr, "not set in this environment") {
		t.Errorf("every secret set (one empty): exit %d\n%s", r.Code, r.Stderr)
	}
}
