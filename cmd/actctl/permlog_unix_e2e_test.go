//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/actctl/actctl/dashboard"
	"github.com/actctl/actctl/tasklog"
)

// permissionLines are the lines `actctl logs --task` prints for the test
// agent's "perm edit" (allowed by the standard preset) and "perm
// execute" (denied by it).
var permissionLines = map[string]string{
	"perm edit":    `permission allowed: Tool of kind edit (edit), option "yes", by the agent's preset (rule edits)`,
	"perm execute": `permission denied: Tool of kind execute (execute), option "no", by the agent's preset (rule edits)`,
}

// checkDecisionLogged checks that the task of agent whose prompt is
// prompt logged its permission decision: `actctl logs --task` prints it
// with who decided, and the dashboard (its task page and history) counts
// it.
func checkDecisionLogged(t *testing.T, root, home, agent, logs, prompt string) {
	t.Helper()
	sums, err := tasklog.Summaries(logs)
	if err != nil {
		t.Fatal(err)
	}
	var sum *tasklog.Summary
	for i := range sums {
		if sums[i].Prompt == prompt {
			sum = &sums[i]
		}
	}
	if sum == nil {
		t.Fatalf("no task %q logged: %+v", prompt, sums)
	}
	r := actctl(t, root, home, "logs", agent, "--task", strconv.FormatUint(sum.Task, 10))
	if r.Code != 0 || !strings.Contains(r.Stdout, permissionLines[prompt]) {
		t.Errorf("%s: logs --task %d: exit %d, want %q:\n%s%s", prompt, sum.Task, r.Code, permissionLines[prompt], r.Stdout, r.Stderr)
	}
	data, err := os.ReadFile(filepath.Join(logs, sum.Log))
	if err != nil {
		t.Fatal(err)
	}
	items, perms := dashboard.ReadLog(data)
	want := dashboard.Permissions{Allowed: 1}
	if strings.HasSuffix(prompt, "execute") {
		want = dashboard.Permissions{Denied: 1}
	}
	found := false
	for _, it := range items {
		found = found || it.Kind == "permission" && strings.Contains(it.Text, "by the agent's preset (rule edits)")
	}
	if perms != want || !found {
		t.Errorf("%s: the dashboard reads %+v, want %+v, and the decision with who decided: %+v", prompt, perms, want, items)
	}
}

// TestPermissionDecisionsLogged: every permission decision is in the
// task log, with who decided (the agent's preset here), for `actctl
// task` and for up's tasks: `actctl logs --task` shows it and the
// dashboard's task page and history count it. Before, only the agent's
// request was logged, and the counts read 0 / 0. (issue #35 item 1)
func TestPermissionDecisionsLogged(t *testing.T) {
	root, home := taskWorkspace(t)
	logs := filepath.Join(home, "instances", "triage", "logs")
	for _, prompt := range []string{"perm edit", "perm execute"} {
		if r := actctl(t, root, home, "task", "triage", "-p", prompt); r.Code != 0 && r.Code != exitDenied {
			t.Fatalf("task %q: exit %d\n%s", prompt, r.Code, r.Stderr)
		}
		checkDecisionLogged(t, root, home, "triage", logs, prompt)
	}

	root, home = upWorkspace(t)
	p := startUp(t, root, home)
	p.waitLine(`up: triage: process:start pid`)
	for _, prompt := range []string{"perm edit", "perm execute"} {
		if r := actctl(t, root, home, "prompt", "triage", "-p", prompt); r.Code != 0 && r.Code != exitDenied {
			t.Fatalf("prompt %q: exit %d\n%s", prompt, r.Code, r.Stderr)
		}
		checkDecisionLogged(t, root, home, "triage", filepath.Join(home, "instances", "triage", "logs"), prompt)
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	p.waitLine(`up: stopped$`)
}
