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
// The hub reports the same problems for hub templates.
func CheckSchedule(s *Schedule) []ScheduleProblem {
	_, problems := compileSchedule(s)
	return problems
}

// ScheduleSpec compiles schedule s for the scheduler; it fails on any
// problem CheckSchedule reports.
func ScheduleSpec(s *Schedule) (cronspec.Spec, error) {
	spec, problems := compileSchedule(s)
	if len(problems) > 0 {
		return cronspec.Spec{}, fmt.Errorf("schedule.%s: %s", problems[0].Field, problems[0].Message)
	}
	return spec, nil
}

func compileSchedule(s *Schedule) (cronspec.Spec, []ScheduleProblem) {
	var spec cronspec.Spec
	var problems []ScheduleProblem
	if s == nil {
		return spec, nil
	}
	if hb := s.Heartbeat; hb != nil {
		d, err := cronspec.ParseInterval(hb.Interval)
		if err != nil {
			problems = append(problems, ScheduleProblem{"heartbeat.interval", err.Error()})
		}
		spec.Heartbeat = &cronspec.Heartbeat{Interval: d, Seed: hb.Prompt}
	}
	for i, c := range s.Cron {
		// Both fields are checked, so an entry with two mistakes reports
		// both: a pattern is checked in UTC when its zone is unknown.
		zone := c.Timezone
		if _, err := cronspec.ParseZone(zone); err != nil {
			problems = append(problems, ScheduleProblem{fmt.Sprintf("cron[%d].timezone", i), err.Error()})
			zone = "UTC"
		}
		entry, err := cronspec.ParseCron(c.Pattern, zone)
		if err != nil {
			problems = append(problems, ScheduleProblem{fmt.Sprintf("cron[%d].pattern", i), "invalid cron pattern " + err.Error()})
			continue
		}
		if zone != c.Timezone {
			continue
		}
		entry.Prompt = c.Prompt
		spec.Cron = append(spec.Cron, entry)
	}
	return spec, problems
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
