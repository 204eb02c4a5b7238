package cronspec

import (
	"testing"
	"time"
)

// TestCronSame: patterns are compared as parsed (actctl task --schedule).
func TestCronSame(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"0 9 * * 0", "0 9 * * 7", true},
		{"0 0 * * 0", "@weekly", true},
		{"0 0 * * SUN", "@weekly", true},
		{"0 0 * * *", "@daily", true},
		{"0 0 * * *", "@midnight", true},
		{"0 * * * *", "@hourly", true},
		{"0 0 1 1 *", "@yearly", true},
		{"0 0 1 * *", "@monthly", true},
		{"0 9 * * MON-FRI", "0 9 * * 1-5", true},
		{"*/15 * * * *", "0,15,30,45 * * * *", true},
		{"0 0 1-31 * *", "0 0 * * *", true},
		{"0 9 * * 1", "0 9 * * 2", false},
		{"0 9 * * *", "0 10 * * *", false},
		// the 1st and every Monday is not every Monday
		{"0 9 1 * MON", "0 9 * * MON", false},
		{"0 0 1-31 * 1", "0 0 * * 1", false},
		{"0 0 * * 0", "@daily", false},
	} {
		a, err := ParseCron(tc.a, "")
		if err != nil {
			t.Fatal(err)
		}
		b, err := ParseCron(tc.b, "UTC")
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Same(b); got != tc.same {
			t.Errorf("%q Same %q = %v, want %v", tc.a, tc.b, got, tc.same)
		}
		if got := b.Same(a); got != tc.same {
			t.Errorf("%q Same %q = %v, want %v", tc.b, tc.a, got, tc.same)
		}
	}
	if (Cron{}).Same(Cron{}) {
		t.Error("zero Crons are the same")
	}
}

// TestHeartbeatPattern: an interval that divides the hour or the day is
// a cron pattern; any other is none.
func TestHeartbeatPattern(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{time.Minute, "*/1 * * * *"},
		{5 * time.Minute, "*/5 * * * *"},
		{30 * time.Minute, "*/30 * * * *"},
		{time.Hour, "0 */1 * * *"},
		{2 * time.Hour, "0 */2 * * *"},
		{24 * time.Hour, "0 0 * * *"},
		{7 * time.Minute, ""},
		{90 * time.Minute, ""},
		{90 * time.Second, ""},
		{5 * time.Hour, ""},
		{48 * time.Hour, ""},
	} {
		got, ok := HeartbeatPattern(tc.d)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("HeartbeatPattern(%v) = %q, %v; want %q", tc.d, got, ok, tc.want)
		}
		if ok {
			if _, err := ParseCron(got, ""); err != nil {
				t.Errorf("HeartbeatPattern(%v) = %q: %v", tc.d, got, err)
			}
		}
	}
}
