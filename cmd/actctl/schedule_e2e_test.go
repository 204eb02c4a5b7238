package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScheduleValidationE2E: an invalid cron pattern or time zone stops
// apply with a positioned error, and nothing is written; the corrected
// config applies.
func TestScheduleValidationE2E(t *testing.T) {
	const cfg = `package actant
templates: worker: {
	backend:   "claude-code"
	archetype: "employee"
	schedule: cron: [{pattern: PATTERN, prompt: "standup", timezone: ZONE}]
}
agents: w: template: "worker"
`
	for _, tc := range []struct{ pattern, zone, want string }{
		{`"0 9 * *"`, `"UTC"`, `actant.cue:5:29: templates.worker.schedule.cron[0].pattern: invalid cron pattern "0 9 * *": a cron pattern has 5 fields`},
		{`"@every 5m"`, `"UTC"`, `templates.worker.schedule.cron[0].pattern: invalid cron pattern "@every 5m": @every is not supported`},
		{`"0 9 * * *"`, `"Europe/Pariss"`, `actant.cue:5:71: templates.worker.schedule.cron[0].timezone: unknown time zone "Europe/Pariss"`},
	} {
		dir := t.TempDir()
		home := filepath.Join(t.TempDir(), "home")
		writeFiles(t, dir, map[string]string{"actant.cue": strings.NewReplacer("PATTERN", tc.pattern, "ZONE", tc.zone).Replace(cfg)})
		for _, args := range [][]string{{"validate"}, {"apply"}} {
			r := actctl(t, dir, home, args...)
			if r.Code != 1 || !strings.Contains(r.Stderr, tc.want) {
				t.Errorf("%s with %s: exit %d, stderr:\n%s\nwant %s", args[0], tc.pattern, r.Code, r.Stderr, tc.want)
			}
		}
		if files := listFiles(t, dir); len(files) != 1 {
			t.Errorf("%s: files written: %v", tc.pattern, files)
		}
		if _, err := os.Stat(filepath.Join(home, "instances")); err == nil {
			t.Errorf("%s: instances written", tc.pattern)
		}
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"actant.cue": strings.NewReplacer("PATTERN", `"30 9 * * MON-FRI"`, "ZONE", `"Europe/Paris"`).Replace(cfg)})
	if r := actctl(t, dir, "", "validate"); r.Code != 0 {
		t.Errorf("valid schedule: exit %d: %s", r.Code, r.Stderr)
	}
}

// TestHeartbeatSeededByApply: apply creates an employee's workspace with
// .heartbeat seeded from schedule.heartbeat.prompt; the agent's rewrite
// of it survives every later apply; a dry run seeds nothing.
func TestHeartbeatSeededByApply(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant
templates: worker: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "Check the issues."}}
templates: plain: {backend: "claude-code", archetype: "employee", schedule: cron: [{pattern: "@daily", prompt: "standup"}]}
agents: w: template: "worker"
agents: p: template: "plain"
`})
	hb := filepath.Join(home, "instances", "w", ".heartbeat")
	if r := actctl(t, dir, home, "apply", "--dry-run"); r.Code != 0 {
		t.Fatalf("dry run: %+v", r)
	}
	if _, err := os.Stat(hb); !os.IsNotExist(err) {
		t.Fatalf("a dry run seeded .heartbeat: %v", err)
	}
	mustApply(t, dir, home)
	if b, err := os.ReadFile(hb); err != nil || string(b) != "Check the issues." {
		t.Fatalf(".heartbeat after apply: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(home, "instances", "p", ".heartbeat")); !os.IsNotExist(err) {
		t.Errorf("an employee without a heartbeat got .heartbeat: %v", err)
	}
	writeFiles(t, filepath.Dir(hb), map[string]string{".heartbeat": "State: labelled 3 issues. Next: triage #12."})
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: %+v", r)
	}
	if b, _ := os.ReadFile(hb); string(b) != "State: labelled 3 issues. Next: triage #12." {
		t.Errorf("apply overwrote the agent's .heartbeat: %q", b)
	}
}
