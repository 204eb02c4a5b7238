// Package schedule runs an employee agent's work: it turns the agent's
// schedule (a heartbeat every interval, cron entries in their time zone)
// into tasks on the agent's serial task queue, and runs those tasks one at
// a time, in order, through an Executor (in up, a turn in the employee's
// primary session).
// It exists apart from the process supervisor (package supervise) because
// a schedule decides when to ask the agent something, not whether its
// process is up; `actctl up` joins the two (docs/runtime.md).
//
// Rules, from docs/runtime.md: ticks that pile up while a task runs
// coalesce (at most one pending task per heartbeat or cron entry); ticks
// missed while nothing ran are not replayed; time comes from an injected
// clock, so tests never wait. Parsing a schedule is package
// internal/cronspec's.
package schedule

import (
	"time"

	"github.com/actctl/actctl/internal/cronspec"
)

// Spec, Heartbeat and Cron are a parsed schedule, defined in
// internal/cronspec; these aliases keep up's spelling.
type (
	Spec      = cronspec.Spec
	Heartbeat = cronspec.Heartbeat
	Cron      = cronspec.Cron
)

// ParseCron is cronspec.ParseCron.
func ParseCron(pattern, timezone string) (Cron, error) { return cronspec.ParseCron(pattern, timezone) }

// ParseInterval is cronspec.ParseInterval.
func ParseInterval(s string) (time.Duration, error) { return cronspec.ParseInterval(s) }
