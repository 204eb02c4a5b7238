//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTaskErrorOnce: a task whose backend cannot start says why once, in
// its summary line (text), or in the summary's error and once on stderr
// (-o json); the text output printed the same error twice.
func TestTaskErrorOnce(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
backends: gone: {acp: command: "actctl-test-no-such-backend", files: instructions: ["GONE.md"]}
templates: emp: {backend: "gone", archetype: "employee", schedule: heartbeat: {interval: "30m", prompt: "look"}}
agents: triage: template: "emp"
`)
	const why = `backend "actctl-test-no-such-backend" could not be started`
	for _, args := range [][]string{{"task", "triage"}, {"-o", "json", "task", "triage"}} {
		r := actctl(t, root, home, args...)
		if r.Code != 1 || strings.Count(r.Stderr, why) != 1 {
			t.Errorf("%v: exit %d, stderr (want the error once):\n%s", args, r.Code, r.Stderr)
		}
	}
}
