package schedule

import (
	"testing"
	"time"
)

func TestUpcoming(t *testing.T) {
	c, err := ParseCron("30 9 * * *", "Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	spec := Spec{Heartbeat: &Heartbeat{Interval: 10 * time.Hour}, Cron: []Cron{c}}
	t0 := time.Date(2026, 3, 28, 0, 0, 0, 0, time.UTC) // the eve of Paris's DST change
	got := upcoming(spec, []time.Time{t0.Add(time.Hour), c.Next(t0)}, 6)
	want := []string{
		"2026-03-28T01:00:00Z heartbeat",
		"2026-03-28T08:30:00Z cron[0]", // 09:30 CET
		"2026-03-28T11:00:00Z heartbeat",
		"2026-03-28T21:00:00Z heartbeat",
		"2026-03-29T07:00:00Z heartbeat",
		"2026-03-29T07:30:00Z cron[0]", // 09:30 CEST
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i, tk := range got {
		if s := tk.Time.UTC().Format(time.RFC3339) + " " + tk.Source; s != want[i] {
			t.Errorf("tick %d: %s, want %s", i, s, want[i])
		}
	}
	if got := upcoming(Spec{}, []time.Time{{}}, 5); len(got) != 0 {
		t.Fatalf("no entry: %v", got)
	}
}
