package model

import (
	"time"
)

// The restart policies of #Restart (docs/runtime.md, "Supervision").
const (
	RestartAlways    = "always"     // restarted whenever it exits unasked
	RestartOnFailure = "on-failure" // restarted unless it exited with status 0
	RestartNever     = "never"      // left crashed
)

// The defaults of turnTimeout and stallAfter when neither the template
// nor its archetype sets one (docs/runtime.md, "Turns").
const (
	DefaultTurnTimeout = 30 * time.Minute
	DefaultStallAfter  = 10 * time.Minute
)

// Liveness is how `actctl up` keeps an agent alive: its restart policy,
// the deadline of each turn, and how long a turn may go without an update
// from the agent before it is shown as stalled.
type Liveness struct {
	Restart     string
	TurnTimeout time.Duration
	StallAfter  time.Duration
}

// Liveness is r's: the template's fields, else its archetype's, else
// on-failure, DefaultTurnTimeout and DefaultStallAfter. The durations
// were validated when the config loaded.
func (r *Resolved) Liveness() Liveness {
	l := Liveness{Restart: firstSet(r.Template.Restart, r.Archetype.Restart, RestartOnFailure),
		TurnTimeout: DefaultTurnTimeout, StallAfter: DefaultStallAfter}
	if d, err := time.ParseDuration(firstSet(r.Template.TurnTimeout, r.Archetype.TurnTimeout)); err == nil && d > 0 {
		l.TurnTimeout = d
	}
	if d, err := time.ParseDuration(firstSet(r.Template.StallAfter, r.Archetype.StallAfter)); err == nil && d > 0 {
		l.StallAfter = d
	}
	return l
}

// firstSet is the first of ss that is not empty.
func firstSet(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
