// Package cronspec parses an employee's schedule (docs/runtime.md,
// "Schedules"): cron patterns in their IANA time zone, heartbeat
// intervals, and when an entry is next due by ISC cron's daylight saving
// rules; it writes an entry in the portable form other engines read
// (docs/deploy.md). It is a leaf, the standard library and the cron
// parser only, so that the config's validation (package schema), the
// deploy targets and `actctl task` share it without the runtime: running
// a schedule on a clock is package schedule's.
package cronspec

import (
	"errors"
	"fmt"
	"strings"
	"time"
	// The IANA time zone database, embedded: a cron entry's timezone is
	// validated and used the same on a machine without one (Windows
	// without Go installed, minimal containers).
	_ "time/tzdata"

	cron "github.com/netresearch/go-cron"
)

// Spec is a parsed schedule.
type Spec struct {
	Heartbeat *Heartbeat
	Cron      []Cron
}

// Heartbeat asks for a heartbeat task every Interval. Seed is the text the
// agent's .heartbeat file starts with (package schedule's SeedHeartbeat
// writes it; every heartbeat's prompt is schedule.HeartbeatPrompt).
type Heartbeat struct {
	Interval time.Duration
	Seed     string
}

// Cron is a task with Prompt at every time Pattern matches in Location.
type Cron struct {
	Pattern  string
	Prompt   string
	Location *time.Location
	spec     *cron.SpecSchedule
	times    []clockTime // the wall-clock times of day it runs at
	// everyHour: the entry runs in every hour of the day, so it follows
	// the clock's new time rather than making up for a skipped time (see
	// Next).
	everyHour bool
}

// Next returns the first time after t at which the entry is due (zero if
// it never is), with ISC cron's rules for daylight saving changes
// (docs/runtime.md, "Daylight saving"): a wall-clock time that the clock
// skips runs once, at the jump (the first instant after the skipped
// stretch: 00:00 on a day whose midnight is skipped runs at the jump to
// 01:00); a wall-clock time that the clock reads twice runs once, at its
// first occurrence. An entry that runs every hour follows the new time
// instead: a skipped time is not run (no hour of work was lost) and a
// repeated one runs at both occurrences (both are real hours of work).
// Times that fall together (several skipped times, or a skipped time and
// the jump's own time) run once.
func (c Cron) Next(t time.Time) time.Time { return c.next(t) }

// parser accepts the standard five fields (minute hour day-of-month month
// day-of-week, with names such as MON and JAN) and the descriptors
// @yearly, @annually, @monthly, @weekly, @daily, @midnight and @hourly.
// As in standard cron, an entry that restricts both the day of month and
// the day of week runs on days matching either ("0 9 1 * MON": the 1st and
// every Monday); the library's default would require both.
var parser = cron.MustNewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor | cron.DowOrDom)

// ParseCron parses a cron pattern and an IANA time zone name ("" means the
// local zone). `@every D` is refused: a fixed interval is what the
// heartbeat is for, and `*/10 * * * *` says "every 10 minutes" on the
// clock. A TZ= prefix is refused too: the zone has its own field.
func ParseCron(pattern, timezone string) (Cron, error) {
	loc, err := ParseZone(timezone)
	if err != nil {
		return Cron{}, err
	}
	p := strings.TrimSpace(pattern)
	switch {
	case p == "":
		return Cron{}, errors.New("empty cron pattern")
	case strings.HasPrefix(p, "@every"):
		return Cron{}, fmt.Errorf("%q: @every is not supported: use schedule.heartbeat for a fixed interval, or a 5-field pattern such as \"*/10 * * * *\"", pattern)
	case strings.HasPrefix(p, "TZ=") || strings.HasPrefix(p, "CRON_TZ="):
		return Cron{}, fmt.Errorf("%q: give the time zone in the timezone field, not in the pattern", pattern)
	case !strings.HasPrefix(p, "@") && len(strings.Fields(p)) != 5:
		return Cron{}, fmt.Errorf("%q: a cron pattern has 5 fields (minute hour day-of-month month day-of-week) or is one of @hourly @daily @midnight @weekly @monthly @yearly @annually; got %d fields", pattern, len(strings.Fields(p)))
	}
	s, err := parser.Parse(p)
	if err != nil {
		if strings.Contains(err.Error(), "option") {
			// The library names its parser options; say it in cron terms.
			return Cron{}, fmt.Errorf("%q: extensions such as L, W, # and H are not standard cron and are not supported", pattern)
		}
		if werr := wordError(p); werr != nil {
			return Cron{}, werr
		}
		return Cron{}, fmt.Errorf("%q: %v", pattern, err)
	}
	spec, ok := s.(*cron.SpecSchedule)
	if !ok {
		return Cron{}, fmt.Errorf("%q: not a cron schedule", pattern)
	}
	spec.Location = loc
	const allHours = 1<<24 - 1
	c := Cron{Pattern: pattern, Location: loc, spec: spec, times: times(spec), everyHour: spec.Hour&allHours == allHours}
	if c.Next(time.Now()).IsZero() {
		return Cron{}, fmt.Errorf("%q never matches a date (such as February 30)", pattern)
	}
	return c, nil
}

// ParseZone loads an IANA time zone; "" is the local zone.
func ParseZone(name string) (*time.Location, error) {
	if name == "" {
		return time.Local, nil
	}
	if name == "Local" {
		return nil, errors.New(`unknown time zone "Local": give an IANA name such as "Europe/Paris", or leave timezone out for the local zone`)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: give an IANA name such as \"Europe/Paris\" or \"UTC\"", name)
	}
	return loc, nil
}

// ParseInterval parses a heartbeat interval: a positive Go duration such
// as "30m", "1h" or "90s".
func ParseInterval(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid interval %q: want a duration such as \"30m\", \"1h\" or \"90s\"", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("invalid interval %q: must be positive", s)
	}
	return d, nil
}
