package cronspec

import (
	"archive/zip"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The window of TestCronEveryZoneTransition: the next two years.
var (
	dstFrom = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	dstTo   = time.Date(2028, 12, 1, 0, 0, 0, 0, time.UTC)
)

// zoneNames lists every zone of Go's time zone database, the one
// time/tzdata embeds: $GOROOT/lib/time/zoneinfo.zip.
func zoneNames(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	r, err := zip.OpenReader(filepath.Join(strings.TrimSpace(string(out)), "lib", "time", "zoneinfo.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var names []string
	for _, f := range r.File {
		if !f.FileInfo().IsDir() {
			names = append(names, f.Name)
		}
	}
	if len(names) < 400 {
		t.Fatalf("only %d zones in the database", len(names))
	}
	return names
}

// transition is one change of a zone's UTC offset.
type transition struct {
	at            time.Time
	before, after time.Duration
}

// transitions finds loc's offset changes in [from, to).
func transitions(loc *time.Location, from, to time.Time) []transition {
	var out []transition
	for t := from; ; {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() || !end.Before(to) {
			return out
		}
		_, before := end.Add(-time.Second).In(loc).Zone()
		_, after := end.In(loc).Zone()
		if before != after {
			out = append(out, transition{end, time.Duration(before) * time.Second, time.Duration(after) * time.Second})
		}
		t = end
	}
}

// dstCase is an entry and what it must run, told apart by the documented
// rules (docs/runtime.md, "Daylight saving").
type dstCase struct {
	pattern   string
	everyHour bool
	match     func(hour, minute int) bool
}

// minute is one minute of real time and what the zone's clock reads then.
type minute struct {
	at           time.Time
	hour, minute int
	first        bool // the first time the clock reads this
}

// clockReadings reads loc's clock minute by minute over (from, to]. The
// scan starts a day early, to know which readings were already seen: a
// reading is new when it is later than every one before (the clock only
// goes back in a repeated stretch).
func clockReadings(t *testing.T, loc *time.Location, from, to time.Time) []minute {
	var out []minute
	var latest time.Time
	for u := from.Add(-26 * time.Hour); !u.After(to); u = u.Add(time.Minute) {
		l := u.In(loc)
		if l.Second() != 0 {
			t.Fatalf("%s at %v: the offset is not in whole minutes", loc, u)
		}
		wall := time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), 0, 0, time.UTC)
		first := wall.After(latest)
		latest = later(latest, wall)
		if u.After(from) {
			out = append(out, minute{u, l.Hour(), l.Minute(), first})
		}
	}
	return out
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// expectRuns is the documented rule, computed the slow way from the
// clock's readings minute by minute over (from, to]: every instant whose
// wall clock matches runs, but for an entry that does not run every hour
// only the first instant of a reading runs (the repeated stretch), and a
// matching reading the clock jumps over runs once, at the jump.
func expectRuns(readings []minute, cs dstCase, from, to time.Time, jumps []transition) []time.Time {
	var runs []time.Time
	for _, r := range readings {
		if cs.match(r.hour, r.minute) && (r.first || cs.everyHour) {
			runs = append(runs, r.at)
		}
	}
	for _, j := range jumps {
		if cs.everyHour || j.after <= j.before || !j.at.After(from) || j.at.After(to) {
			continue
		}
		for w := j.at.Add(j.before); w.Before(j.at.Add(j.after)); w = w.Add(time.Minute) {
			if r := w.UTC(); cs.match(r.Hour(), r.Minute()) {
				runs = append(runs, j.at)
				break
			}
		}
	}
	slices.SortFunc(runs, time.Time.Compare)
	return slices.Compact(runs)
}

// nextRuns is what Next gives over (from, to].
func nextRuns(c Cron, from, to time.Time) []time.Time {
	var runs []time.Time
	for n := c.Next(from); !n.IsZero() && !n.After(to); n = c.Next(n) {
		runs = append(runs, n)
	}
	return runs
}

// casesFor are the entries checked around a transition: a daily midnight,
// two hourly ones, and a daily one whose time lies in the skipped or
// repeated stretch (with an hourly one at its minute).
func casesFor(j transition) []dstCase {
	cases := []dstCase{
		{"0 0 * * *", false, func(h, m int) bool { return h == 0 && m == 0 }},
		{"@daily", false, func(h, m int) bool { return h == 0 && m == 0 }},
		{"0 * * * *", true, func(h, m int) bool { return m == 0 }},
	}
	if j.after == j.before {
		return cases
	}
	lo, hi := j.at.Add(min(j.before, j.after)), j.at.Add(max(j.before, j.after))
	mid := lo.Add(hi.Sub(lo) / 2).Truncate(time.Minute).UTC()
	h, m := mid.Hour(), mid.Minute()
	return append(cases,
		dstCase{fmt.Sprintf("%d %d * * *", m, h), false, func(hh, mm int) bool { return hh == h && mm == m }},
		dstCase{fmt.Sprintf("%d * * * *", m), true, func(_, mm int) bool { return mm == m }},
	)
}

// TestCronEveryZoneTransition (issue #20 item 19): in every zone of the
// time zone database, around every change of its offset in the next two
// years (and over two plain days for zones without one), Next runs what
// the documented rule says: a skipped wall-clock time once at the jump, a
// repeated one once at its first occurrence, an entry that runs every hour
// at every instant its minute comes round. Before, @daily did not run on
// the day the clock jumped over midnight (America/Santiago, Asia/Beirut,
// Africa/Cairo) nor a time inside the 30-minute jump of
// Australia/Lord_Howe.
func TestCronEveryZoneTransition(t *testing.T) {
	checked := 0
	for _, name := range zoneNames(t) {
		loc, err := time.LoadLocation(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		js := transitions(loc, dstFrom, dstTo)
		windows := []transition{{at: dstFrom.Add(24 * time.Hour)}}
		if len(js) > 0 {
			windows = js
		}
		for _, w := range windows {
			from, to := w.at.Add(-24*time.Hour), w.at.Add(24*time.Hour)
			readings := clockReadings(t, loc, from, to)
			for _, cs := range casesFor(w) {
				c, err := ParseCron(cs.pattern, name)
				if err != nil {
					t.Fatalf("%s %s: %v", name, cs.pattern, err)
				}
				want, got := expectRuns(readings, cs, from, to, js), nextRuns(c, from, to)
				if !slices.EqualFunc(want, got, time.Time.Equal) {
					t.Errorf("%s %q around %v (offset %v -> %v):\n got %s\nwant %s", name, cs.pattern, w.at.In(loc), w.before, w.after, show(got, loc), show(want, loc))
				}
				checked++
			}
		}
	}
	t.Logf("%d entries checked", checked)
}

func show(ts []time.Time, loc *time.Location) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.In(loc).Format("01-02 15:04 -0700"))
	}
	return strings.Join(out, ", ")
}

// TestCronSpringForwardNamed: the zones of the report, by name, with the
// times they must run on the day of the jump.
func TestCronSpringForwardNamed(t *testing.T) {
	for _, tc := range []struct {
		zone, pattern, from string
		want                []string // the next three runs
	}{
		// The clock jumps from 00:00 to 01:00: midnight runs at 01:00.
		{"America/Santiago", "@daily", "2027-09-04 12:00", []string{"09-05 01:00 -0300", "09-06 00:00 -0300", "09-07 00:00 -0300"}},
		{"America/Santiago", "0 0 * * *", "2027-09-04 12:00", []string{"09-05 01:00 -0300", "09-06 00:00 -0300", "09-07 00:00 -0300"}},
		{"America/Santiago", "30 0 * * *", "2027-09-04 12:00", []string{"09-05 01:00 -0300", "09-06 00:30 -0300", "09-07 00:30 -0300"}},
		{"America/Santiago", "0 * * * *", "2027-09-04 22:30", []string{"09-04 23:00 -0400", "09-05 01:00 -0300", "09-05 02:00 -0300"}},
		{"Asia/Beirut", "@daily", "2027-03-27 12:00", []string{"03-28 01:00 +0300", "03-29 00:00 +0300", "03-30 00:00 +0300"}},
		{"Africa/Cairo", "@daily", "2027-04-29 12:00", []string{"04-30 01:00 +0300", "05-01 00:00 +0300", "05-02 00:00 +0300"}},
		// A 30-minute jump, 02:00 to 02:30.
		{"Australia/Lord_Howe", "0 2 * * *", "2027-10-02 12:00", []string{"10-03 02:30 +1100", "10-04 02:00 +1100", "10-05 02:00 +1100"}},
		{"Australia/Lord_Howe", "15 2 * * *", "2027-10-02 12:00", []string{"10-03 02:30 +1100", "10-04 02:15 +1100", "10-05 02:15 +1100"}},
		{"Australia/Lord_Howe", "45 2 * * *", "2027-10-02 12:00", []string{"10-03 02:45 +1100", "10-04 02:45 +1100", "10-05 02:45 +1100"}},
		{"Australia/Lord_Howe", "15 * * * *", "2027-10-03 00:30", []string{"10-03 01:15 +1030", "10-03 03:15 +1100", "10-03 04:15 +1100"}},
		// And back, 02:00 to 01:30: 01:45 once, at its first occurrence;
		// every hour at :45 twice.
		{"Australia/Lord_Howe", "45 1 * * *", "2027-04-03 12:00", []string{"04-04 01:45 +1100", "04-05 01:45 +1030", "04-06 01:45 +1030"}},
		{"Australia/Lord_Howe", "45 * * * *", "2027-04-04 00:50", []string{"04-04 01:45 +1100", "04-04 01:45 +1030", "04-04 02:45 +1030"}},
	} {
		c := mustCron(t, tc.pattern, tc.zone)
		from, err := time.ParseInLocation("2006-01-02 15:04", tc.from, c.Location)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for range 3 {
			from = c.Next(from)
			got = append(got, from.Format("01-02 15:04 -0700"))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s %q from %s:\n got %v\nwant %v", tc.zone, tc.pattern, tc.from, got, tc.want)
		}
	}
}
