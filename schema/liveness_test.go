package schema

import (
	"testing"
	"time"
)

// TestLiveness: an employee and a service restart on-failure with a 30m
// turn deadline and a 10m stall time by default (their archetypes'); a
// template's fields win over an archetype's, and an archetype's over the
// built-in defaults.
func TestLiveness(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"actant.cue": `package actant
archetypes: service: turnTimeout: "1h"
templates: {
	emp: {backend: "claude-code", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "p"}}
	svc: {backend: "claude-code", archetype: "service"}
	own: {backend: "claude-code", archetype: "service", restart: "never", turnTimeout: "2s", stallAfter: "1s"}
}
agents: {e: template: "emp", s: template: "svc", o: template: "own"}
`})
	want := map[string]Liveness{
		"e": {Restart: RestartOnFailure, TurnTimeout: 30 * time.Minute, StallAfter: 10 * time.Minute},
		"s": {Restart: RestartOnFailure, TurnTimeout: time.Hour, StallAfter: 10 * time.Minute},
		"o": {Restart: RestartNever, TurnTimeout: 2 * time.Second, StallAfter: time.Second},
	}
	for name, w := range want {
		r, err := cfg.Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Liveness(); got != w {
			t.Errorf("%s: %+v, want %+v", name, got, w)
		}
	}
}

// TestLivenessInvalid: a turnTimeout or stallAfter that is no positive
// duration, and a restart policy that is none, are refused at their
// position.
func TestLivenessInvalid(t *testing.T) {
	runValidation(t, []validationCase{
		{name: "template durations", cue: `templates: s: {backend: "claude-code", archetype: "service", turnTimeout: "soon", stallAfter: "-1m"}
agents: a: template: "s"
`, want: []string{
			`actant.cue:3:75: templates.s.turnTimeout: turnTimeout "soon": want a positive Go duration`,
			`templates.s.stallAfter: stallAfter "-1m": want a positive Go duration`,
		}},
		{name: "archetype duration", cue: `archetypes: employee: stallAfter: "0s"
`, want: []string{`archetypes.employee.stallAfter: stallAfter "0s": want a positive Go duration`}},
		{name: "restart policy", cue: `templates: s: {backend: "claude-code", archetype: "service", restart: "sometimes"}
agents: a: template: "s"
`, want: []string{`templates.s.restart`}},
	})
}
