package cronspec

import (
	"sort"
	"time"

	cron "github.com/netresearch/go-cron"
)

// The next-time computation of a cron entry is actctl's own: the library
// parses the pattern into bit sets, and Next walks the entry's days and
// wall-clock times in its zone, resolving each wall-clock time to the
// instants that read it. The library's own Next skips the spring-forward
// day when the jump is at midnight (America/Santiago, Asia/Beirut,
// Africa/Cairo) or lasts 30 minutes (Australia/Lord_Howe); the rules are
// in docs/runtime.md ("Daylight saving").

// starBit marks a field written as "*" (the library's convention): with
// the library's day rule, a day-of-month or day-of-week given as "*"
// matches every day.
const starBit = 1 << 63

// searchDays bounds the search for a next time: five years, as the
// library does (a pattern that matches no day in five years, such as
// February 30, never runs).
const searchDays = 5*366 + 1

// clockTime is one wall-clock time of day an entry runs at.
type clockTime struct{ hour, minute int }

// on is the wall-clock reading of ct on the civil date d (both as UTC).
func (ct clockTime) on(d time.Time) time.Time {
	return d.Add(time.Duration(ct.hour)*time.Hour + time.Duration(ct.minute)*time.Minute)
}

// times lists the wall-clock times of day of spec, in order.
func times(spec *cron.SpecSchedule) []clockTime {
	var out []clockTime
	for h := range 24 {
		if spec.Hour&(1<<h) == 0 {
			continue
		}
		for m := range 60 {
			if spec.Minute&(1<<m) != 0 {
				out = append(out, clockTime{h, m})
			}
		}
	}
	return out
}

// dayMatches reports whether the entry runs on the civil date d (a UTC
// midnight), with the library's rule for day of month and day of week.
func dayMatches(spec *cron.SpecSchedule, d time.Time) bool {
	if spec.Month&(1<<uint(d.Month())) == 0 {
		return false
	}
	dom := spec.Dom&(1<<uint(d.Day())) != 0
	dow := spec.Dow&(1<<uint(d.Weekday())) != 0
	if spec.DowOrDom && spec.Dom&starBit == 0 && spec.Dow&starBit == 0 {
		return dom || dow
	}
	return dom && dow
}

// next returns the first instant after t at which the entry is due.
// Candidates are found day by day from the day before t's (a clock set
// back over midnight reads yesterday's times again); once one is found,
// the following day is still looked at, since its earliest instants can
// come before the found one's when the clock went back.
func (c Cron) next(t time.Time) time.Time {
	lt := t.In(c.Location)
	day := time.Date(lt.Year(), lt.Month(), lt.Day()-1, 0, 0, 0, 0, time.UTC)
	var best time.Time
	for i, last := 0, searchDays; i <= last; i++ {
		d := day.AddDate(0, 0, i)
		if !dayMatches(c.spec, d) {
			continue
		}
		if at := c.firstOn(d, t); !at.IsZero() && (best.IsZero() || at.Before(best)) {
			if best.IsZero() {
				last = i + 1
			}
			best = at
		}
	}
	if best.IsZero() {
		return best
	}
	return best.In(c.Location)
}

// firstOn returns the earliest instant after t at which the entry runs
// for a wall-clock time of the civil date d; zero if none.
func (c Cron) firstOn(d time.Time, t time.Time) time.Time {
	z := zoneAround(c.Location, d)
	if z.plain {
		// One offset all day: the times in order are instants in order.
		off := z.periods[0].offset
		i := sort.Search(len(c.times), func(i int) bool { return c.times[i].on(d).Add(-off).After(t) })
		if i == len(c.times) {
			return time.Time{}
		}
		return c.times[i].on(d).Add(-off)
	}
	var best time.Time
	for _, ct := range c.times {
		for _, at := range c.instants(z, ct.on(d)) {
			if at.After(t) && (best.IsZero() || at.Before(best)) {
				best = at
			}
		}
	}
	return best
}

// instants are the instants at which the entry runs for the wall-clock
// reading wall (a UTC-labelled time): the one instant that reads it; in a
// repeated hour the first one (both for an entry that runs every hour);
// in a skipped one, the jump (none for an entry that runs every hour).
func (c Cron) instants(z zone, wall time.Time) []time.Time {
	at := z.reading(wall)
	switch {
	case len(at) == 0 && !c.everyHour:
		if j := z.jumpOver(wall); !j.IsZero() {
			return []time.Time{j}
		}
	case len(at) > 1 && !c.everyHour:
		return at[:1]
	}
	return at
}

// period is a stretch of time with one UTC offset; a zero start or end is
// unbounded.
type period struct {
	start, end time.Time
	offset     time.Duration
}

func (p period) holds(t time.Time) bool {
	return (p.start.IsZero() || !t.Before(p.start)) && (p.end.IsZero() || t.Before(p.end))
}

// zone is a time zone's periods around one civil date.
type zone struct {
	periods []period
	plain   bool // one period covers the day and two days either side
}

// zoneAround returns loc's periods around the civil date d (a UTC
// midnight): wide enough for every instant that can read a time of d,
// whatever the offsets (they lie within a day of UTC).
func zoneAround(loc *time.Location, d time.Time) zone {
	from, to := d.Add(-48*time.Hour), d.Add(72*time.Hour)
	var z zone
	for t := from; ; {
		start, end := t.In(loc).ZoneBounds()
		_, off := t.In(loc).Zone()
		z.periods = append(z.periods, period{start: start, end: end, offset: time.Duration(off) * time.Second})
		if end.IsZero() || !end.Before(to) {
			break
		}
		t = end
	}
	z.plain = len(z.periods) == 1
	return z
}

// reading returns the instants whose wall clock reads wall, in order:
// none in a skipped stretch, two in a repeated one.
func (z zone) reading(wall time.Time) []time.Time {
	var out []time.Time
	for _, p := range z.periods {
		if at := wall.Add(-p.offset); p.holds(at) {
			out = append(out, at)
		}
	}
	return out
}

// jumpOver returns the instant at which the clock jumped over wall (the
// first instant after the skipped stretch that holds it); zero if wall is
// not skipped.
func (z zone) jumpOver(wall time.Time) time.Time {
	for i := 1; i < len(z.periods); i++ {
		before, after := z.periods[i-1], z.periods[i]
		jump := after.start
		if !wall.Before(jump.Add(before.offset)) && wall.Before(jump.Add(after.offset)) {
			return jump
		}
	}
	return time.Time{}
}
