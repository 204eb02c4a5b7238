package main

import (
	"strings"
	"testing"
)

// TestFirstDayMissingField: the newcomer's misspelled agent, heartbeat
// without prompt and template without backend are each reported at the
// user's own line, in actctl's words and naming the field (never in the
// embedded actctl-schema.cue), and apply writes nothing.
func TestFirstDayMissingField(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant

templates: nightly: {backend: "claude-code", archetype: "employee", schedule: heartbeat: interval: "1h"}
templates: bare: description: "no backend"
agents: nightly: template: "nightly"
agents: nightlly: deploy: github: false
`})
	r := actctl(t, dir, "", "apply")
	if r.Code != 1 {
		t.Fatalf("apply: exit %d, want 1\n%s", r.Code, r.Stderr)
	}
	for _, want := range []string{
		`actant.cue:6:9: agents.nightlly: missing required field "template" (did you mean "nightly"?)`,
		`actant.cue:3:79: templates.nightly.schedule.heartbeat: missing required field "prompt"`,
		`actant.cue:4:12: templates.bare: missing required field "backend"`,
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
	if strings.Contains(r.Stderr, "actctl-schema.cue") || strings.Contains(r.Stderr, "incomplete value") {
		t.Errorf("stderr speaks of the embedded schema:\n%s", r.Stderr)
	}
	assertNotWritten(t, dir, "apply", "actant.lock", "CLAUDE.md", ".claude/settings.json")
}
