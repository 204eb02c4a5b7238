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

// TestSessionCwdNoDirectoriesNote: where the agent does not take
// additionalDirectories, `run` and `chat` say once, as `proxy` does, that
// the employee's sessions work in the client's project; with an agent
// that takes them they say nothing of it.
func TestSessionCwdNoDirectoriesNote(t *testing.T) {
	for _, takes := range []bool{false, true} {
		root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
		env := `ACTCTL_TEST_EXTRA_DIRS: "0"`
		if takes {
			env = `ACTCTL_TEST_EXTRA_DIRS: "1"`
		}
		writeConfigTB(t, root, `package actant
`+scriptedBackend(t, env)+`
archetypes: employee: interactionModes: ["start", "chat", "run", "proxy"]
templates: emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}}
agents: triage: template: "emp"
`)
		project := t.TempDir()
		for verb, r := range map[string]result{
			"run":  actctl(t, root, home, "run", "triage", "--cwd", project, "-p", "dirs"),
			"chat": chatWith(t, root, home, "dirs\n", "triage", "--cwd", project),
		} {
			note := "actctl: note: " + verb + ": agent triage: the backend does not take additionalDirectories: its sessions work in the client's project"
			if r.Code != 0 || strings.Count(r.Stderr, note) != map[bool]int{false: 1, true: 0}[takes] {
				t.Errorf("%s, agent takes directories %v: exit %d, want the note %d times:\n%s", verb, takes, r.Code, map[bool]int{false: 1, true: 0}[takes], r.Stderr)
			}
		}
	}
}
