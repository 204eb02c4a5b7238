package schema

import (
	"fmt"

	"github.com/actctl/actctl/internal/cronspec"
)

// ScheduleProblem is one invalid field of a schedule: Field is its path
// inside the schedule ("heartbeat.interval", "cron[0].pattern").
type ScheduleProblem struct {
	Field   string
	Message string
}

// CheckSchedule returns what is wrong with s: a heartbeat interval that is
// not a positive duration, a cron pattern that is not 5 fields or a
// supported @name, a time zone that is not an IANA name (docs/runtime.md).
// The hub reports the same problems for hub templates; up.ScheduleOf
// compiles a schedule without them for the scheduler.
func CheckSchedule(s *Schedule) []ScheduleProblem {
	if s == nil {
		return nil
	}
	var problems []ScheduleProblem
	if hb := s.Heartbeat; hb != nil {
		if _, err := cronspec.ParseInterval(hb.Interval); err != nil {
			problems = append(problems, ScheduleProblem{"heartbeat.interval", err.Error()})
		}
	}
	for i, c := range s.Cron {
		// Both fields are checked, so an entry with two mistakes reports
		// both: a pattern is checked in UTC when its zone is unknown.
		zone := c.Timezone
		if _, err := cronspec.ParseZone(zone); err != nil {
			problems = append(problems, ScheduleProblem{fmt.Sprintf("cron[%d].timezone", i), err.Error()})
			zone = "UTC"
		}
		if _, err := cronspec.ParseCron(c.Pattern, zone); err != nil {
			problems = append(problems, ScheduleProblem{fmt.Sprintf("cron[%d].pattern", i), "invalid cron pattern " + err.Error()})
		}
	}
	return problems
}

// validateSchedule reports the problems of template name's schedule, each
// at its field.
func (c *Config) validateSchedule(name string, s *Schedule) Diagnostics {
	var ds Diagnostics
	for _, p := range CheckSchedule(s) {
		ds = append(ds, c.Diag(Path("templates", name, "schedule")+"."+p.Field, "%s", p.Message))
	}
	return ds
}
