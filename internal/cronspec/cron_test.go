package cronspec

import (
	"strings"
	"testing"
	"time"
)

func TestParseCron(t *testing.T) {
	for _, tc := range []struct {
		pattern, tz string
		err         string // substring; "" means valid
	}{
		{"0 9 * * 1-5", "", ""},
		{"*/15 * * * *", "UTC", ""},
		{"0 0 1 JAN MON", "Europe/Paris", ""},
		{"@hourly", "", ""},
		{"@daily", "Asia/Tokyo", ""},
		{"@midnight", "", ""},
		{"@weekly", "", ""},
		{"@monthly", "", ""},
		{"@yearly", "", ""},
		{"@annually", "", ""},
		{"", "", "empty cron pattern"},
		{"0 9 * *", "", "5 fields"},
		{"0 0 9 * * *", "", "got 6 fields"},
		{"@every 5m", "", "@every is not supported"},
		{"TZ=UTC 0 9 * * *", "", "timezone field"},
		{"@fortnightly", "", "unrecognized descriptor"},
		{"61 * * * *", "", "61"},
		{"0 0 30 2 *", "", "never matches"},
		{"0 0 L * *", "", "extensions such as L, W, # and H are not standard cron"},
		{"0 0 15W * *", "", "extensions such as L"},
		{"0 0 * * MON#2", "", "extensions such as L"},
		{"H * * * *", "", "H"},
		{"0 9 * * *", "Mars/Olympus", `unknown time zone "Mars/Olympus"`},
		{"0 9 * * *", "Local", `unknown time zone "Local"`},
	} {
		c, err := ParseCron(tc.pattern, tc.tz)
		if tc.err == "" {
			if err != nil {
				t.Errorf("ParseCron(%q, %q): %v", tc.pattern, tc.tz, err)
			} else if want := tc.tz; want != "" && c.Location.String() != want {
				t.Errorf("ParseCron(%q, %q): location %v", tc.pattern, tc.tz, c.Location)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseCron(%q, %q) = %v, want error containing %q", tc.pattern, tc.tz, err, tc.err)
		}
	}
}

func mustCron(t *testing.T, pattern, tz string) Cron {
	t.Helper()
	c, err := ParseCron(pattern, tz)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCronDST checks ISC cron's rules across daylight saving changes in
// America/New_York (2024-03-10 02:00 -> 03:00; 2024-11-03 02:00 -> 01:00):
// a time inside the skipped hour runs once, at the jump (02:30 does not
// exist that day: it runs at 03:00 EDT); a time inside the repeated
// hour runs once, at its first occurrence; an hourly entry runs in both
// repeated hours.
func TestCronDST(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err) // the database is embedded (time/tzdata)
	}
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04 MST", s, ny)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	seq := func(c Cron, from time.Time, n int) []string {
		var out []string
		for i := 0; i < n; i++ {
			from = c.Next(from)
			out = append(out, from.In(ny).Format("01-02 15:04 MST"))
		}
		return strings.Split(strings.Join(out, ","), ",")
	}
	spring := seq(mustCron(t, "30 2 * * *", "America/New_York"), at("2024-03-08 12:00 EST"), 3)
	if want := []string{"03-09 02:30 EST", "03-10 03:00 EDT", "03-11 02:30 EDT"}; strings.Join(spring, ",") != strings.Join(want, ",") {
		t.Errorf("spring forward: %v, want %v", spring, want)
	}
	fall := seq(mustCron(t, "30 1 * * *", "America/New_York"), at("2024-11-02 12:00 EDT"), 2)
	if want := []string{"11-03 01:30 EDT", "11-04 01:30 EST"}; strings.Join(fall, ",") != strings.Join(want, ",") {
		t.Errorf("fall back: %v, want %v", fall, want)
	}
	hourly := seq(mustCron(t, "30 * * * *", "America/New_York"), at("2024-11-03 00:45 EDT"), 3)
	if want := []string{"11-03 01:30 EDT", "11-03 01:30 EST", "11-03 02:30 EST"}; strings.Join(hourly, ",") != strings.Join(want, ",") {
		t.Errorf("hourly in the repeated hour: %v, want %v", hourly, want)
	}
	// The zone is the entry's, not the machine's: 09:00 in Paris is 07:00
	// UTC in summer and 08:00 UTC in winter.
	paris := mustCron(t, "0 9 * * *", "Europe/Paris")
	if got := paris.Next(time.Date(2026, 3, 28, 12, 0, 0, 0, time.UTC)).UTC(); !got.Equal(time.Date(2026, 3, 29, 7, 0, 0, 0, time.UTC)) {
		t.Errorf("Paris after the change: %v", got)
	}
	if got := paris.Next(time.Date(2026, 3, 27, 12, 0, 0, 0, time.UTC)).UTC(); !got.Equal(time.Date(2026, 3, 28, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("Paris before the change: %v", got)
	}
}

func TestParseInterval(t *testing.T) {
	if d, err := ParseInterval("90s"); err != nil || d != 90*time.Second {
		t.Errorf("90s = %v %v", d, err)
	}
	for _, s := range []string{"", "0s", "-5m", "5", "daily"} {
		if _, err := ParseInterval(s); err == nil {
			t.Errorf("ParseInterval(%q) accepted", s)
		}
	}
}

// TestCronDayOfMonthOrWeek: standard cron runs an entry that restricts both
// day fields on days matching either; one restricted field alone decides.
func TestCronDayOfMonthOrWeek(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		runs    func(d time.Time) bool
	}{
		{"0 9 1 * MON", func(d time.Time) bool { return d.Day() == 1 || d.Weekday() == time.Monday }},
		{"0 9 1,15 * FRI", func(d time.Time) bool { return d.Day() == 1 || d.Day() == 15 || d.Weekday() == time.Friday }},
		{"0 9 * * MON", func(d time.Time) bool { return d.Weekday() == time.Monday }},
		{"0 9 1 * *", func(d time.Time) bool { return d.Day() == 1 }},
	} {
		c := mustCron(t, tc.pattern, "UTC")
		from := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
		var want []time.Time
		for d := from; d.Year() < 2027 || d.Month() < 3; d = d.AddDate(0, 0, 1) {
			if tc.runs(d) {
				want = append(want, d.Add(9*time.Hour))
			}
		}
		at := from
		for i, w := range want {
			got := c.Next(at)
			if !got.Equal(w) {
				t.Errorf("%q run %d after %v: got %v, want %v", tc.pattern, i, at, got, w)
				break
			}
			at = got
		}
	}
}

// TestCronWordsListNames: a misspelled month or day name lists the
// names, and a word in a numbers-only field says so, in cron's terms
// rather than the parser's (no strconv.Atoi).
func TestCronWordsListNames(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{"0 9 * * MOM", `"MOM" is not a day of week: the names are SUN MON TUE WED THU FRI SAT (or the numbers 0-7, 0 and 7 are Sunday)`},
		{"0 9 * * mon-FRJ", `"FRJ" is not a day of week`},
		{"0 9 1 JNA *", `"JNA" is not a month: the names are JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC (or the numbers 1-12)`},
		{"0 nine * * *", `the hour field takes numbers (0-23), not "nine"`},
	} {
		_, err := ParseCron(tc.pattern, "UTC")
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "strconv") {
			t.Errorf("ParseCron(%q) = %v, want %q", tc.pattern, err, tc.want)
		}
	}
	if _, err := ParseCron("0 9 * jan mon-fri", "UTC"); err != nil {
		t.Errorf("lower-case names: %v", err)
	}
}
