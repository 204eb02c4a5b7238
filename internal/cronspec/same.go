package cronspec

import (
	"fmt"
	"time"

	cron "github.com/netresearch/go-cron"
)

// Same reports whether c and o fire at the same wall-clock times, their
// time zones aside: the patterns are compared as parsed, not as written,
// so "0 9 * * 7" is "0 9 * * 0" and "@weekly" is "0 0 * * 0" (`actctl
// task --schedule`, docs/runtime.md).
func (c Cron) Same(o Cron) bool {
	if c.spec == nil || o.spec == nil {
		return false
	}
	return keyOf(c.spec) == keyOf(o.spec)
}

// cronKey is what decides when a parsed pattern fires. A day matches its
// day-of-month and day-of-week fields both when either is "*", else
// either of them (standard cron): and says which.
type cronKey struct {
	minute, hour, dom, month, dow uint64
	and                           bool
}

func keyOf(s *cron.SpecSchedule) cronKey {
	const star = 1 << 63
	dow := s.Dow &^ star
	if dow&(1<<7) != 0 { // Sunday written 7
		dow = dow&^(1<<7) | 1
	}
	return cronKey{minute: s.Minute &^ star, hour: s.Hour &^ star, dom: s.Dom &^ star, month: s.Month &^ star, dow: dow,
		and: s.Dom&star != 0 || s.Dow&star != 0}
}

// HeartbeatPattern is the cron pattern that fires every d on the clock,
// when one does: d a whole number of minutes dividing the hour
// ("*/N * * * *"), or of hours dividing the day ("0 */N * * *", a day
// "0 0 * * *"). ok is false for any other interval (90m, 7m), which no
// cron pattern says.
func HeartbeatPattern(d time.Duration) (pattern string, ok bool) {
	if d <= 0 || d%time.Minute != 0 {
		return "", false
	}
	n := int(d / time.Minute)
	switch {
	case n < 60 && 60%n == 0:
		return fmt.Sprintf("*/%d * * * *", n), true
	case n%60 != 0:
		return "", false
	case n == 24*60:
		return "0 0 * * *", true
	case n < 24*60 && (24*60)%n == 0:
		return fmt.Sprintf("0 */%d * * *", n/60), true
	}
	return "", false
}
