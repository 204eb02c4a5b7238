package schema

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

const scheduleTemplate = `package actant
templates: worker: {
	backend:   "claude-code"
	archetype: "employee"
	schedule: {
		heartbeat: {interval: %s, prompt: "check the queue"}
		cron: [
			{pattern: "0 9 * * 1-5", prompt: "standup"},
			{pattern: %s, prompt: "report", timezone: %s},
		]
	}
}
agents: w: template: "worker"
`

func loadSchedule(t *testing.T, interval, pattern, tz string) (*Config, error) {
	t.Helper()
	src := strings.NewReplacer("%s", "\x00").Replace(scheduleTemplate)
	for _, v := range []string{interval, pattern, tz} {
		src = strings.Replace(src, "\x00", `"`+v+`"`, 1)
	}
	dir := writeWorkspace(t, map[string]string{"actant.cue": src})
	return LoadDir(dir, filepath.Join(t.TempDir(), "home"))
}

func TestScheduleValid(t *testing.T) {
	cfg, err := loadSchedule(t, "30m", "@daily", "Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Templates["worker"].Schedule
	if p := CheckSchedule(s); len(p) != 0 {
		t.Fatalf("problems %+v", p)
	}
	if s.Heartbeat.Interval != "30m" || s.Heartbeat.Prompt != "check the queue" || len(s.Cron) != 2 {
		t.Fatalf("schedule %+v", s)
	}
	if c := s.Cron[1]; c.Pattern != "@daily" || c.Prompt != "report" || c.Timezone != "Europe/Paris" {
		t.Errorf("cron[1] = %+v", c)
	}
}

// TestScheduleInvalid: each bad field is an error at its own line and
// column, with its CUE path.
func TestScheduleInvalid(t *testing.T) {
	for _, tc := range []struct {
		interval, pattern, tz string
		want                  string
	}{
		{"0s", "@daily", "UTC", `actant.cue:6:25: templates.worker.schedule.heartbeat.interval: invalid interval "0s": must be positive`},
		{"soon", "@daily", "UTC", `actant.cue:6:25: templates.worker.schedule.heartbeat.interval: invalid interval "soon"`},
		{"1h", "0 9 * *", "UTC", `actant.cue:9:14: templates.worker.schedule.cron[1].pattern: invalid cron pattern "0 9 * *": a cron pattern has 5 fields`},
		{"1h", "@every 1h", "UTC", `actant.cue:9:14: templates.worker.schedule.cron[1].pattern: invalid cron pattern "@every 1h": @every is not supported`},
		{"1h", "99 * * * *", "UTC", `actant.cue:9:14: templates.worker.schedule.cron[1].pattern: invalid cron pattern "99 * * * *"`},
		{"1h", "@daily", "Europe/Pariss", `actant.cue:9:52: templates.worker.schedule.cron[1].timezone: unknown time zone "Europe/Pariss"`},
	} {
		_, err := loadSchedule(t, tc.interval, tc.pattern, tc.tz)
		var ds Diagnostics
		if !errors.As(err, &ds) {
			t.Errorf("%+v: err = %v, want diagnostics", tc, err)
			continue
		}
		if len(ds.Errors()) != 1 {
			t.Errorf("%+v: %d errors:\n%v", tc, len(ds.Errors()), err)
		}
		got := ds.Errors()[0].String()
		if !strings.Contains(got, tc.want) {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
