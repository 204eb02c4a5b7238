//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestTaskPromptEvents: actctl task publishes prompt:before and
// prompt:after around its turn, and error when the turn failed, to its
// run hooks with the data up gives them (schema.Events; new-user review
// item 5).
func TestTaskPromptEvents(t *testing.T) {
	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	logEvent := `run: {command: "sh", args: ["-c", "printf '%s\\n' \"$ACTCTL_EVENT\" >> events.log"]}`
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: emp: {backend: "scripted", archetype: "employee", schedule: cron: [{pattern: "0 9 * * 7", prompt: "hello"}, {pattern: "@weekly", prompt: "refuse"}]}
agents: triage: template: "emp"
hooks: "before": {on: "prompt:before", `+logEvent+`}
hooks: "after": {on: "prompt:after", `+logEvent+`}
hooks: "error": {on: "error", `+logEvent+`}
`)
	if r := actctl(t, root, home, "task", "triage", "--source", "cron:0"); r.Code != 0 {
		t.Fatalf("cron:0: exit %d\n%s", r.Code, r.Stderr)
	}
	if r := actctl(t, root, home, "task", "triage", "--source", "cron:1"); r.Code != 3 {
		t.Fatalf("cron:1 (refuse): exit %d, want 3\n%s", r.Code, r.Stderr)
	}
	b, _ := os.ReadFile(filepath.Join(root, "events.log"))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	want := [][]string{
		{`"name":"prompt:before","agent":"triage"`, `"task":1`, `"source":"cron[0]"`, `"prompt":"hello"`},
		{`"name":"prompt:after","agent":"triage"`, `"task":1`, `"source":"cron[0]"`, `"stopReason":"end_turn"`},
		{`"name":"prompt:before","agent":"triage"`, `"task":2`, `"source":"cron[1]"`, `"prompt":"refuse"`},
		{`"name":"prompt:after","agent":"triage"`, `"task":2`, `"stopReason":"refusal"`, `"error":"the turn ended: refusal"`},
		{`"name":"error","agent":"triage"`, `"task":2`, `"source":"cron[1]"`, `"error":"the turn ended: refusal"`},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d events, want %d:\n%s", len(lines), len(want), b)
	}
	// Hooks run concurrently: each wanted event is some line.
	for _, w := range want {
		if !slices.ContainsFunc(lines, func(l string) bool { return containsAll(l, w) }) {
			t.Errorf("no event has %q:\n%s", w, b)
		}
	}
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
