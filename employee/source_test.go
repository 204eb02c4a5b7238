package employee

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/cronspec"
	"github.com/actctl/actctl/schedule"
)

func spec(t *testing.T, hb time.Duration, patterns ...string) *cronspec.Spec {
	t.Helper()
	s := &cronspec.Spec{}
	if hb > 0 {
		s.Heartbeat = &cronspec.Heartbeat{Interval: hb, Seed: "seed"}
	}
	for i, p := range patterns {
		c, err := cronspec.ParseCron(p, "Europe/Paris")
		if err != nil {
			t.Fatal(err)
		}
		c.Prompt = "prompt " + string(rune('A'+i))
		s.Cron = append(s.Cron, c)
	}
	return s
}

// TestBySchedule: a CI's schedule string maps back to its entry as
// parsed, the heartbeat's clock pattern to the heartbeat; no match is a
// usage error listing the entries.
func TestBySchedule(t *testing.T) {
	s := spec(t, 30*time.Minute, "0 9 * * 7", "@weekly", "0 9 * * MON-FRI")
	for _, tc := range []struct {
		pattern, want, err string
	}{
		{"0 9 * * 0", "cron:0", ""},
		{"0 9 * * 7", "cron:0", ""},
		{"0 0 * * 0", "cron:1", ""},
		{"0 0 * * SUN", "cron:1", ""},
		{"0 9 * * 1-5", "cron:2", ""},
		{"*/30 * * * *", "heartbeat", ""},
		{"0,30 * * * *", "heartbeat", ""},
		{"*/15 * * * *", "", `--schedule "*/15 * * * *" matches none of the agent's schedule entries: heartbeat every 30m0s (*/30 * * * *), cron:0 "0 9 * * 7", cron:1 "@weekly", cron:2 "0 9 * * MON-FRI"`},
		{"0 9 * *", "", "--schedule: \"0 9 * *\": a cron pattern has 5 fields"},
	} {
		got, err := BySchedule(s, tc.pattern)
		if tc.err != "" {
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %v, want a usage error with %q", tc.pattern, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.pattern, got, err, tc.want)
		}
	}
	if _, err := BySchedule(spec(t, 90*time.Minute), "0 */1 * * *"); err == nil || !strings.Contains(err.Error(), "heartbeat every 1h30m0s (no cron pattern)") {
		t.Errorf("90m heartbeat: %v", err)
	}
	if _, err := BySchedule(nil, "@daily"); err == nil || !strings.Contains(err.Error(), "it has none") {
		t.Errorf("no schedule: %v", err)
	}
}

// TestPick: each source's task, the default source, and the refusals.
func TestPick(t *testing.T) {
	s := spec(t, time.Hour, "@daily")
	none := spec(t, 0, "@daily")
	for _, tc := range []struct {
		s            *cronspec.Spec
		source, text string
		want         schedule.Task
		err          string
	}{
		{s, "", "", schedule.Task{Kind: schedule.KindHeartbeat, Prompt: schedule.HeartbeatPrompt, Source: "heartbeat"}, ""},
		{s, "heartbeat", "", schedule.Task{Kind: schedule.KindHeartbeat, Prompt: schedule.HeartbeatPrompt, Source: "heartbeat"}, ""},
		{s, "cron:0", "", schedule.Task{Kind: schedule.KindCron, Prompt: "prompt A", Source: "cron[0]"}, ""},
		{s, "cron[0]", "", schedule.Task{Kind: schedule.KindCron, Prompt: "prompt A", Source: "cron[0]"}, ""},
		{s, "", "do it", schedule.Task{Kind: schedule.KindPrompt, Prompt: "do it", Source: "manual"}, ""},
		{s, "manual", "do it", schedule.Task{Kind: schedule.KindPrompt, Prompt: "do it", Source: "manual"}, ""},
		{none, "", "", schedule.Task{}, "the agent has no heartbeat; give --source cron:0 | manual (with -p TEXT)"},
		{none, "heartbeat", "", schedule.Task{}, "--source heartbeat: the agent has no heartbeat"},
		{s, "cron:1", "", schedule.Task{}, "--source cron:1: the agent has 1 cron entry; give --source heartbeat | cron:0 | manual (with -p TEXT)"},
		{s, "cron:x", "", schedule.Task{}, `"x" is no cron entry index`},
		{s, "cron:-1", "", schedule.Task{}, `"-1" is no cron entry index`},
		{s, "hourly", "", schedule.Task{}, "--source hourly: unknown source; give --source heartbeat"},
		{s, "manual", " ", schedule.Task{}, "--source manual needs a prompt"},
		{s, "manual", "", schedule.Task{}, "--source manual needs a prompt"},
		{s, "heartbeat", "x", schedule.Task{}, "-p and --prompt-file make a manual task: drop --source heartbeat"},
	} {
		got, err := Pick(tc.s, tc.source, tc.text)
		if tc.err != "" {
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Pick(%q, %q): %v, want a usage error with %q", tc.source, tc.text, err, tc.err)
			}
			continue
		}
		if err != nil || got.Kind != tc.want.Kind || got.Prompt != tc.want.Prompt || got.Source != tc.want.Source {
			t.Errorf("Pick(%q, %q) = %+v, %v; want %+v", tc.source, tc.text, got, err, tc.want)
		}
	}
}
