package deploy

import (
	"fmt"
	"testing"
	"time"

	robfig "github.com/robfig/cron/v3"

	"github.com/actctl/actctl/internal/cronspec"
)

// runs lists the instants next gives in [from, to).
func runs(next func(time.Time) time.Time, from, to time.Time) []time.Time {
	var out []time.Time
	for t := next(from.Add(-time.Nanosecond)); !t.IsZero() && t.Before(to); t = next(t) {
		out = append(out, t.UTC())
	}
	return out
}

// transitions returns loc's next two offset changes after from.
func transitions(loc *time.Location, from time.Time) []time.Time {
	var out []time.Time
	for t := from; len(out) < 2; {
		_, end := t.In(loc).ZoneBounds()
		if end.IsZero() {
			break
		}
		out = append(out, end)
		t = end
	}
	return out
}

// TestDSTAgainstKubernetes runs the CronJob controller's parser
// (robfig/cron, as formatSchedule gives it "TZ=<zone> <schedule>") and
// actctl's scheduler over the next two daylight saving changes of three
// zones, and asserts exactly the differences docs/deploy.md's table
// states (and cronspec.Cron.DSTExposed warns of): a skipped time runs
// once at the jump under actctl and not at all under Kubernetes, a
// repeated time once under actctl and twice under Kubernetes; an entry
// every hour and an entry away from the change run the same. When
// either side changes, this test says so.
func TestDSTAgainstKubernetes(t *testing.T) {
	from := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, zone := range []string{"Europe/Paris", "America/New_York", "Australia/Sydney"} {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range transitions(loc, from) {
			_, before := tr.Add(-time.Second).In(loc).Zone()
			_, after := tr.In(loc).Zone()
			skipped := after > before
			h, m := clockOf(tr, min(before, after))
			lo, hi := tr.Add(-36*time.Hour), tr.Add(36*time.Hour)
			cases := []struct {
				pattern      string
				actctl, kube int
				exposed      bool
			}{
				{fmt.Sprintf("%d %d * * *", m, h), 1, map[bool]int{true: 0, false: 2}[skipped], true},
				{fmt.Sprintf("%d * * * *", m), -1, -1, false},
				{fmt.Sprintf("%d %d * * *", m, (h+6)%24), -1, -1, false},
			}
			for _, c := range cases {
				name := fmt.Sprintf("%s %s %q", zone, tr.Format("2006-01-02"), c.pattern)
				ours, err := cronspec.ParseCron(c.pattern, zone)
				if err != nil {
					t.Fatal(err)
				}
				theirs, err := robfig.ParseStandard("TZ=" + zone + " " + c.pattern)
				if err != nil {
					t.Fatal(err)
				}
				a := runs(ours.Next, lo, hi)
				k := runs(theirs.Next, lo, hi)
				exposed := len(ours.DSTExposed(lo, hi)) > 0
				if exposed != c.exposed {
					t.Errorf("%s: DSTExposed %v, want %v", name, exposed, c.exposed)
				}
				if c.actctl < 0 {
					if fmt.Sprint(a) != fmt.Sprint(k) {
						t.Errorf("%s: actctl %v, Kubernetes %v: want the same", name, a, k)
					}
					continue
				}
				day := func(ts []time.Time) int { return countNear(ts, tr) }
				if day(a) != c.actctl || day(k) != c.kube {
					t.Errorf("%s: around the change actctl runs %d times %v, Kubernetes %d %v; want %d and %d", name, day(a), a, day(k), k, c.actctl, c.kube)
				}
				if skipped && day(a) == 1 && !near(a, tr) {
					t.Errorf("%s: actctl runs %v, want at the jump %s", name, a, tr.UTC())
				}
			}
		}
	}
}

// clockOf returns the wall-clock time (hour, minute) 30 minutes into
// the stretch the change at tr skips or repeats: the reading at tr in
// the smaller of the two offsets, plus 30 minutes.
func clockOf(tr time.Time, offset int) (int, int) {
	w := tr.UTC().Add(time.Duration(offset)*time.Second + 30*time.Minute)
	return w.Hour(), w.Minute()
}

// countNear counts the runs within 12 hours of tr.
func countNear(ts []time.Time, tr time.Time) int {
	n := 0
	for _, t := range ts {
		if d := t.Sub(tr); d > -12*time.Hour && d < 12*time.Hour {
			n++
		}
	}
	return n
}

func near(ts []time.Time, tr time.Time) bool {
	for _, t := range ts {
		if t.Equal(tr) {
			return true
		}
	}
	return false
}
