//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestUpShutdownRunsStopHooks: the process:stop hooks of up's shutdown
// run to their end (they had a cancelled context and never started),
// for every agent, and up waits for them (issue #26 item 5).
func TestUpShutdownRunsStopHooks(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: {
	svc: {backend: "scripted", archetype: "service"}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "x"}}
}
agents: {
	api: template: "svc"
	triage: template: "emp"
}
hooks: "log-stop": {on: "process:stop", run: {command: "sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> stops.log"]}}
`)
	p := startUp(t, root, home)
	for seen := map[string]bool{}; len(seen) < 2; { // in either order
		seen[p.waitLine(`up: (api|triage): process:start`)[1]] = true
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`up: stopped$`)
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up: %v\n%s", err, p.stderr())
	}
	b, err := os.ReadFile(filepath.Join(root, "stops.log"))
	if err != nil {
		t.Fatalf("no process:stop hook ran: %v\n%s", err, p.stderr())
	}
	for _, a := range []string{"api", "triage"} {
		if !strings.Contains(string(b), `"name":"process:stop","agent":"`+a+`"`) {
			t.Errorf("no process:stop hook for %s: %s", a, b)
		}
	}
	if s := p.stderr(); strings.Contains(s, "log-stop") {
		t.Errorf("up reported the hook:\n%s", s)
	}
}
