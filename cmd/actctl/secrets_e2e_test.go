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
// never a value; a variable with a default is no secret), and run on.
func TestMissingSecretsWarned(t *testing.T) {
	root, home := taskWorkspace(t)
	f, err := os.OpenFile(filepath.Join(root, "actant.cue"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`deploy: secretKeys: ["ACTCTL_TEST_SECRET_GONE", "ACTCTL_TEST_SECRET_SET", "ACTCTL_TEST_SECRET_ALSO_GONE"]` + "\n")
	f.Close()
	t.Setenv("ACTCTL_TEST_SECRET_SET", "value-never-printed")
	want := "actctl: warning: not set in this environment: ACTCTL_TEST_SECRET_ALSO_GONE, ACTCTL_TEST_SECRET_GONE (actant.cue names them for triage: MCP servers, hub tokens or deploy.secretKeys); the agents start without them\n"
	r := actctl(t, root, home, "task", "triage")
	if r.Code != 0 || strings.Count(r.Stderr, want) != 1 || strings.Contains(r.Stderr, "value-never-printed") || strings.Contains(r.Stderr, "SECRET_SET") {
		t.Errorf("task: exit %d, want one warning %q:\n%s", r.Code, want, r.Stderr)
	}
	p := startUp(t, root, home, "triage")
	p.waitLine(`^actctl: warning: not set in this environment: ACTCTL_TEST_SECRET_ALSO_GONE, ACTCTL_TEST_SECRET_GONE \(actant.cue names them for triage:`)
	p.cmd.Process.Signal(os.Interrupt)
	p.cmd.Wait()

	t.Setenv("ACTCTL_TEST_SECRET_GONE", "")
	t.Setenv("ACTCTL_TEST_SECRET_ALSO_GONE", "x")
	if r := actctl(t, root, home, "task", "triage"); r.Code != 0 || strings.Contains(r.Stderr, "not set in this environment") {
		t.Errorf("every secret set (one empty): exit %d\n%s", r.Code, r.Stderr)
	}
}
