package up

import (
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/model"
)

// TestScheduleOf: a template's schedule compiles to the scheduler's spec
// (the heartbeat's interval and seed, each cron entry with its prompt and
// zone, the local zone when it names none); a field that no longer
// parses is an error naming it.
func TestScheduleOf(t *testing.T) {
	spec, err := ScheduleOf(&model.Schedule{
		Heartbeat: &model.Heartbeat{Interval: "30m", Prompt: "check the queue"},
		Cron: []model.Cron{
			{Pattern: "0 9 * * 1-5", Prompt: "standup"},
			{Pattern: "@daily", Prompt: "report", Timezone: "Europe/Paris"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if spec.Heartbeat.Interval != 30*time.Minute || spec.Heartbeat.Seed != "check the queue" || len(spec.Cron) != 2 {
		t.Fatalf("spec %+v", spec)
	}
	if c := spec.Cron[1]; c.Prompt != "report" || c.Location.String() != "Europe/Paris" {
		t.Errorf("cron[1] = %+v", c)
	}
	if spec.Cron[0].Location != time.Local {
		t.Errorf("default zone %v, want local", spec.Cron[0].Location)
	}
	if spec, err := ScheduleOf(nil); spec != nil || err != nil {
		t.Errorf("no schedule: %+v, %v", spec, err)
	}
	for _, tc := range []struct {
		s    model.Schedule
		want string
	}{
		{model.Schedule{Heartbeat: &model.Heartbeat{Interval: "soon"}}, "schedule.heartbeat.interval: "},
		{model.Schedule{Cron: []model.Cron{{Pattern: "0 9 * * *"}, {Pattern: "61 * * * *"}}}, "schedule.cron[1]: "},
	} {
		if _, err := ScheduleOf(&tc.s); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q...", tc.s, err, tc.want)
		}
	}
}
