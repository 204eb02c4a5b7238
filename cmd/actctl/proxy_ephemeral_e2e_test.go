package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProxyEphemeralPolicy: a repo agent whose template has
// workspacePolicy "ephemeral" is served through proxy by a copy of its
// own, materialized for the client and removed when it disconnects; the
// declared agent's instance is never made (docs/run.md).
func TestProxyEphemeralPolicy(t *testing.T) {
	root, home, out := proxyWorkspace(t)
	cue := filepath.Join(root, "actant.cue")
	b, err := os.ReadFile(cue)
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "templates: {", `templates: {
	scratch: {backend: "fake", archetype: "repo", prompts: ["p"], workspacePolicy: "ephemeral"}`, 1)
	src = strings.Replace(src, "agents: {", "agents: {\n\tpad: template: \"scratch\"", 1)
	writeFiles(t, root, map[string]string{"actant.cue": src})
	c := startProxy(t, root, home, "pad", "-C", root)
	c.initialize()
	c.newSession(1, root)
	c.close()
	got := agentLog(t, out)
	inst := filepath.Join(home, "instances")
	if len(got) < 2 || !strings.HasPrefix(got[0], "process "+filepath.Join(inst, "pad-eph-")) {
		t.Fatalf("backend saw %v, want a copy pad-eph-* in %s\nstderr: %s", got, inst, c.stderr)
	}
	ephDir := strings.TrimPrefix(got[0], "process ")
	if want := "session session/new " + ephDir; got[1] != want {
		t.Errorf("backend saw %q, want %q", got[1], want)
	}
	if _, err := os.Stat(ephDir); !os.IsNotExist(err) {
		t.Errorf("the copy %s is left after the client disconnected: %v", ephDir, err)
	}
	if _, err := os.Stat(filepath.Join(inst, "pad")); !os.IsNotExist(err) {
		t.Errorf("the declared agent's instance was made: %v", err)
	}
	if want := `proxy: pad has workspacePolicy "ephemeral"; using the ephemeral copy pad-eph-`; !strings.Contains(c.stderr.String(), want) {
		t.Errorf("stderr %q, want %q", c.stderr, want)
	}
}

// TestProxyEphemeralToolAgent: a tool agent with workspacePolicy
// "ephemeral" served through proxy in another project gets a copy of its
// own there: its files are written for the session and pruned when the
// client disconnects, leaving the project as it was.
func TestProxyEphemeralToolAgent(t *testing.T) {
	root, home, out := proxyWorkspace(t)
	cue := filepath.Join(root, "actant.cue")
	b, err := os.ReadFile(cue)
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "templates: {", `templates: {
	tscratch: {backend: "fake", prompts: ["p"], workspacePolicy: "ephemeral"}`, 1)
	src = strings.Replace(src, "agents: {", "agents: {\n\ttpad: template: \"tscratch\"", 1)
	writeFiles(t, root, map[string]string{"actant.cue": src})
	project := t.TempDir()
	c := startProxy(t, project, home, "tpad", "-C", root)
	c.initialize()
	c.newSession(1, project)
	if _, err := os.Stat(filepath.Join(project, "FAKE.md")); err != nil {
		t.Errorf("the copy's files are not in the project during the session: %v\nstderr: %s", err, c.stderr)
	}
	c.close()
	if got := agentLog(t, out); len(got) < 1 || got[0] != "process "+project {
		t.Errorf("backend saw %v, want it in %s", got, project)
	}
	if left, _ := os.ReadDir(project); len(left) != 0 {
		t.Errorf("the copy left %v in the project\nstderr: %s", left, c.stderr)
	}
	if !strings.Contains(c.stderr.String(), `tpad-p`) || !strings.Contains(c.stderr.String(), `has workspacePolicy "ephemeral"; using the ephemeral copy`) {
		t.Errorf("stderr: %s", c.stderr)
	}
}
