package cronspec

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Engines that run a schedule for actctl on other machines (Kubernetes'
// CronJob, GitHub Actions; docs/deploy.md) read plain POSIX cron: five
// numeric fields, day of week 0-6, no descriptors. Portable writes an
// entry in that form from what the parser made of it, so a pattern means
// the same to them as to actctl: "0 9 * * 7" becomes "0 9 * * 0",
// "@weekly" "0 0 * * 0", names become numbers.

// fieldRange is one field's bounds in a portable pattern.
type fieldRange struct{ min, max int }

var portableFields = [5]fieldRange{{0, 59}, {0, 23}, {1, 31}, {1, 12}, {0, 6}}

// Portable returns the entry's pattern in portable form (see above).
func (c Cron) Portable() string {
	s := c.spec
	dow := s.Dow
	if dow&(1<<7) != 0 { // 7 is Sunday too
		dow |= 1
	}
	bits := [5]uint64{s.Minute, s.Hour, s.Dom, s.Month, dow}
	out := make([]string, 5)
	for i, b := range bits {
		out[i] = field(b, portableFields[i])
	}
	return strings.Join(out, " ")
}

// field writes one field's bit set: "*" when it was given as "*", "*/N"
// for a step from the minimum over the whole range, else a list of
// values and ranges.
func field(b uint64, r fieldRange) string {
	if b&starBit != 0 {
		return "*"
	}
	var vals []int
	for v := r.min; v <= r.max; v++ {
		if b&(1<<uint(v)) != 0 {
			vals = append(vals, v)
		}
	}
	if step := stepOf(vals, r); step > 1 {
		return "*/" + strconv.Itoa(step)
	}
	var parts []string
	for i := 0; i < len(vals); {
		j := i
		for j+1 < len(vals) && vals[j+1] == vals[j]+1 {
			j++
		}
		switch {
		case j-i >= 2:
			parts = append(parts, fmt.Sprintf("%d-%d", vals[i], vals[j]))
		case j > i:
			parts = append(parts, strconv.Itoa(vals[i]), strconv.Itoa(vals[j]))
		default:
			parts = append(parts, strconv.Itoa(vals[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// stepOf returns N when vals are exactly min, min+N, ... up to max's
// range, N > 1 (and, in a field starting at 1, three values at least: month
// 1,7 stays as it is); 0 otherwise.
func stepOf(vals []int, r fieldRange) int {
	if len(vals) < 2 || (len(vals) < 3 && r.min != 0) || vals[0] != r.min {
		return 0
	}
	step := vals[1] - vals[0]
	if step < 2 || len(vals) != (r.max-r.min)/step+1 {
		return 0
	}
	for i := range vals {
		if vals[i] != r.min+i*step {
			return 0
		}
	}
	return step
}

// IntervalPattern returns the clock-aligned cron pattern of a heartbeat
// interval, where one exists: minutes that divide an hour ("*/15 * * *
// *"), hours that divide a day ("0 */6 * * *"). An interval of 45 minutes
// or 5 hours has none: the error says so.
func IntervalPattern(d time.Duration) (string, error) {
	switch {
	case d >= time.Minute && d < time.Hour && d%time.Minute == 0 && time.Hour%d == 0:
		if n := int(d / time.Minute); n > 1 {
			return fmt.Sprintf("*/%d * * * *", n), nil
		}
		return "* * * * *", nil
	case d%time.Hour == 0 && 24*time.Hour%d == 0:
		switch n := int(d / time.Hour); n {
		case 1:
			return "0 * * * *", nil
		case 24:
			return "0 0 * * *", nil
		default:
			return fmt.Sprintf("0 */%d * * *", n), nil
		}
	}
	return "", fmt.Errorf("an interval of %s has no cron equivalent: use a number of minutes that divides an hour (5m, 10m, 15m, 30m) or of hours that divides a day (1h, 2h, 6h, 12h, 24h)", d)
}

// MinGap is the shortest time between two runs of the entry on one day,
// or across midnight when it runs every day; 24h when it runs once a day.
func (c Cron) MinGap() time.Duration {
	gap := 24 * time.Hour
	ts := c.times
	for i := 1; i < len(ts); i++ {
		if g := ts[i].minutes() - ts[i-1].minutes(); time.Duration(g)*time.Minute < gap {
			gap = time.Duration(g) * time.Minute
		}
	}
	every := c.spec.Dom&starBit != 0 && c.spec.Month&starBit != 0 && c.spec.Dow&starBit != 0
	if every && len(ts) > 1 {
		if g := 24*60 - ts[len(ts)-1].minutes() + ts[0].minutes(); time.Duration(g)*time.Minute < gap {
			gap = time.Duration(g) * time.Minute
		}
	}
	return gap
}

func (ct clockTime) minutes() int { return ct.hour*60 + ct.minute }

// DSTExposed returns the daylight saving transitions of the entry's zone
// in [from, to) on which the entry has a wall-clock time the clock skips
// or reads twice. There, engines whose cron follows other rules than
// actctl's (docs/deploy.md, "Daylight saving on the targets") run it at
// another time or another number of times. An entry that runs every hour
// is not exposed: it follows the new time, as the engines do.
func (c Cron) DSTExposed(from, to time.Time) []time.Time {
	if c.everyHour {
		return nil
	}
	var out []time.Time
	for t := from; t.Before(to); {
		_, end := t.In(c.Location).ZoneBounds()
		if end.IsZero() || !end.Before(to) {
			break
		}
		_, before := end.Add(-time.Second).In(c.Location).Zone()
		_, after := end.In(c.Location).Zone()
		lo, hi := end.Add(time.Duration(min(before, after))*time.Second), end.Add(time.Duration(max(before, after))*time.Second)
		if before != after && c.wallIn(lo.UTC(), hi.UTC()) {
			out = append(out, end)
		}
		t = end
	}
	return out
}

// wallIn reports whether the entry has a wall-clock time in [lo, hi) (UTC-
// labelled wall readings) on a day it runs.
func (c Cron) wallIn(lo, hi time.Time) bool {
	for d := time.Date(lo.Year(), lo.Month(), lo.Day(), 0, 0, 0, 0, time.UTC); d.Before(hi); d = d.AddDate(0, 0, 1) {
		if !dayMatches(c.spec, d) {
			continue
		}
		for _, ct := range c.times {
			if w := ct.on(d); !w.Before(lo) && w.Before(hi) {
				return true
			}
		}
	}
	return false
}
