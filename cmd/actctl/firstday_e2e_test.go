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

// TestFirstDayCronDayName: a misspelled day name in a cron pattern is
// reported at the pattern with the names to choose from, not in the
// parser's words (strconv.Atoi).
func TestFirstDayCronDayName(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant

templates: nightly: {backend: "claude-code", archetype: "employee", schedule: cron: [{pattern: "0 9 * * MOM", prompt: "x"}]}
agents: nightly: template: "nightly"
`})
	r := actctl(t, dir, "", "validate")
	want := `actant.cue:3:96: templates.nightly.schedule.cron[0].pattern: invalid cron pattern "0 9 * * MOM": "MOM" is not a day of week: the names are SUN MON TUE WED THU FRI SAT`
	if r.Code != 1 || !strings.Contains(r.Stderr, want) || strings.Contains(r.Stderr, "strconv") {
		t.Fatalf("validate: exit %d, want 1 and %q:\n%s", r.Code, want, r.Stderr)
	}
}
