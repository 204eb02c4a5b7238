package up

import (
	"fmt"

	"github.com/actctl/actctl/model"
	"github.com/actctl/actctl/schedule"
)

// ScheduleOf parses an employee's schedule (validated with positions when
// the config loaded; an error here means the config changed meanwhile).
func ScheduleOf(s *model.Schedule) (*schedule.Spec, error) {
	if s == nil {
		return nil, nil
	}
	out := &schedule.Spec{}
	if h := s.Heartbeat; h != nil {
		d, err := schedule.ParseInterval(h.Interval)
		if err != nil {
			return nil, fmt.Errorf("schedule.heartbeat.interval: %w", err)
		}
		out.Heartbeat = &schedule.Heartbeat{Interval: d, Seed: h.Prompt}
	}
	for i, c := range s.Cron {
		e, err := schedule.ParseCron(c.Pattern, c.Timezone)
		if err != nil {
			return nil, fmt.Errorf("schedule.cron[%d]: %w", i, err)
		}
		e.Prompt = c.Prompt
		out.Cron = append(out.Cron, e)
	}
	return out, nil
}
