package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSessionCwdEveryPath: an employee's sessionCwd "workspace+client"
// holds on `run`, `chat` and `chat` leased from `up` (proxy --lease's
// relay) as on `proxy` (docs/runtime.md, "An employee reached from an
// editor"): with an agent that takes additionalDirectories the session
// works in the instance and the client's project is among its
// additionalDirectories. Before, all three passed the client's project
// as the session cwd.
func TestSessionCwdEveryPath(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	project := t.TempDir()
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, `ACTCTL_TEST_EXTRA_DIRS: "1"`)+`
archetypes: employee: interactionModes: ["start", "chat", "run", "proxy"]
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}}
agents: triage: template: "emp"
`)
	dirs := regexp.MustCompile(`dirs cwd (\S+) \[(.*)\]`)
	check := func(what string, r result) {
		t.Helper()
		m := dirs.FindStringSubmatch(r.Stdout)
		if r.Code != 0 || m == nil || !strings.HasPrefix(m[1], filepath.Join(home, "instances")+string(filepath.Separator)) || m[2] != project {
			t.Errorf("%s: exit %d, want the session in an instance under %s with [%s]:\n%s%s", what, r.Code, home, project, r.Stdout, r.Stderr)
		}
	}
	check("run", actctl(t, root, home, "run", "triage", "--cwd", project, "-p", "dirs"))
	check("chat", chatWith(t, root, home, "dirs\n", "triage", "--cwd", project))
	p := startUp(t, root, home, "triage")
	p.started("triage")
	r := chatWith(t, root, home, "dirs\n", "triage", "--cwd", project)
	if !strings.Contains(r.Stderr, "triage runs under actctl up") {
		t.Errorf("chat did not lease the warm agent:\n%s", r.Stderr)
	}
	check("chat on a lease", r)
}
