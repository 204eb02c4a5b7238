package cronspec

import (
	"strings"
	"testing"
	"time"
)

func TestPortable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0 9 * * 7", "0 9 * * 0"},
		{"0 9 * * 5-7", "0 9 * * 0,5,6"},
		{"0 9 * * 1-5", "0 9 * * 1-5"},
		{"0 9 * * MON-FRI", "0 9 * * 1-5"},
		{"30 8 1 JAN,JUL *", "30 8 1 1,7 *"},
		{"@weekly", "0 0 * * 0"},
		{"@daily", "0 0 * * *"},
		{"@midnight", "0 0 * * *"},
		{"@hourly", "0 * * * *"},
		{"@monthly", "0 0 1 * *"},
		{"@yearly", "0 0 1 1 *"},
		{"@annually", "0 0 1 1 *"},
		{"*/15 * * * *", "*/15 * * * *"},
		{"0 */6 * * *", "0 */6 * * *"},
		{"5,35 9-17 * * *", "5,35 9-17 * * *"},
		{"0,30 * * * *", "*/30 * * * *"},
		{"0 9 1 * 1-7", "0 9 1 * 0-6"},
	} {
		c, err := ParseCron(tc.in, "UTC")
		if got := c.Portable(); err != nil || got != tc.want {
			t.Errorf("ParseCron(%q).Portable() = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestIntervalPattern(t *testing.T) {
	for _, tc := range []struct {
		in   time.Duration
		want string
	}{
		{time.Minute, "* * * * *"}, {5 * time.Minute, "*/5 * * * *"}, {30 * time.Minute, "*/30 * * * *"},
		{time.Hour, "0 * * * *"}, {6 * time.Hour, "0 */6 * * *"}, {24 * time.Hour, "0 0 * * *"},
		{45 * time.Minute, ""}, {5 * time.Hour, ""}, {90 * time.Second, ""}, {48 * time.Hour, ""},
	} {
		got, err := IntervalPattern(tc.in)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("IntervalPattern(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), "no cron equivalent") {
			t.Errorf("IntervalPattern(%s): %v", tc.in, err)
		}
	}
}

func TestMinGap(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"*/2 * * * *", 2 * time.Minute}, {"*/5 * * * *", 5 * time.Minute}, {"0 9 * * *", 24 * time.Hour},
		{"58 23 * * *", 24 * time.Hour}, {"0,58 * * * *", 2 * time.Minute}, {"0 9,10 * * 1", time.Hour},
	} {
		c, err := ParseCron(tc.in, "UTC")
		if err != nil {
			t.Fatal(err)
		}
		if got := c.MinGap(); got != tc.want {
			t.Errorf("MinGap(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestDSTExposed(t *testing.T) {
	from := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	to := from.AddDate(1, 0, 0)
	for _, tc := range []struct {
		pattern, zone string
		want          int
	}{
		{"30 2 * * *", "Europe/Paris", 2}, // skipped in March, repeated in October
		{"0 9 * * *", "Europe/Paris", 0},
		{"30 * * * *", "Europe/Paris", 0}, // every hour: follows the new time
		{"30 2 * * *", "UTC", 0},
		{"30 2 * * 1", "Europe/Paris", 0}, // the transitions are Sundays
		{"30 1 * * *", "America/New_York", 1},
	} {
		c, err := ParseCron(tc.pattern, tc.zone)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.DSTExposed(from, to); len(got) != tc.want {
			t.Errorf("DSTExposed(%q, %s) = %v, want %d transitions", tc.pattern, tc.zone, got, tc.want)
		}
	}
}
