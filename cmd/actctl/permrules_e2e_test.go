package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPermissionRulesDecide: the agent's own allow, deny and ask rules
// answer its permission requests before its mode does (docs/run.md,
// "Permission rules"). With defaultMode bypassPermissions, `run` denies
// the command a deny rule names and rejects the one an ask rule names
// (no person to ask), and allows the rest; with defaultMode default, an
// employee's task is allowed the command and the path its allow rules
// name, and `logs --task` says which rule decided. Before, the mode
// alone answered: rm and git push were allowed, make and the edit denied.
func TestPermissionRulesDecide(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: {
	tl: {backend: "scripted", permissions: {defaultMode: "bypassPermissions", deny: ["Bash(rm:*)"], ask: ["Bash(git push:*)"]}}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check"}
		permissions: {defaultMode: "default", allow: ["Bash(make:*)", "Edit(notes/**)"], deny: ["Edit(//etc/**)"]}}
}
agents: {helper: template: "tl", triage: template: "emp"}
`)
	for _, tc := range []struct {
		verb, agent, prompt, want string
		flags                     []string
	}{
		{"run", "helper", "perm-cmd rm -rf build", "permission: no", nil},
		// A flag takes the allow and ask rules' place, never a deny rule's.
		{"run", "helper", "perm-cmd rm -rf build", "permission: no", []string{"--approve-all"}},
		{"run", "helper", "perm-cmd git push origin main", "permission: yes", []string{"--approve-all"}},
		{"run", "helper", "perm-cmd git push origin main", "permission: no", nil},
		{"run", "helper", "perm-cmd ls -la", "permission: yes", nil},
		{"task", "triage", "perm-cmd make test", "permission: yes", nil},
		{"task", "triage", "perm-path edit notes/today.md", "permission: yes", nil},
		{"task", "triage", "perm-path edit /etc/hosts", "permission: no", nil},
	} {
		args := append([]string{tc.verb, tc.agent, "-p", tc.prompt}, tc.flags...)
		if r := actctl(t, root, home, args...); !strings.Contains(r.Stdout, tc.want) {
			t.Errorf("%s %s -p %q %v: exit %d, want %q\n%s%s", tc.verb, tc.agent, tc.prompt, tc.flags, r.Code, tc.want, r.Stdout, r.Stderr)
		}
	}
	for task, want := range map[string]string{
		"1": "permission allowed: `make test` (execute), option \"yes\", by the agent's permission rule allow Bash(make:*)",
		"2": "by the agent's permission rule allow Edit(notes/**)",
		"3": "permission denied: edit /etc/hosts (edit), option \"no\", by the agent's permission rule deny Edit(//etc/**)",
	} {
		if r := actctl(t, root, home, "logs", "triage", "--task", task); !strings.Contains(r.Stdout+r.Stderr, want) {
			t.Errorf("logs --task %s: exit %d, want %q\n%s%s", task, r.Code, want, r.Stdout, r.Stderr)
		}
	}
}
