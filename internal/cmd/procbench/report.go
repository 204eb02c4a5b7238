package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"
)

// row is one line of the table: a measurement, and how it compares with
// its floor round by round (a ratio or a difference in ms).
type row struct {
	work   string
	get    func(round) time.Duration
	floor  func(round) time.Duration // nil: a floor itself
	ratio  bool                      // compare as a ratio, else as a difference
	limit  float64                   // the target: ratio, or ms over the floor
	target string
}

var rows = []row{
	{work: "start floor (links cuelang.org/go, does nothing; the run beside --help)", get: func(r round) time.Duration { return r.startHelp }},
	{work: "`actctl --help`", get: func(r round) time.Duration { return r.help }, floor: func(r round) time.Duration { return r.startHelp }, ratio: true, limit: 1.1, target: "<= 1.1x start floor"},
	{work: "write floor (same files: dirs first, parallel temp+fsync+rename)", get: func(r round) time.Duration { return r.floor }},
	{work: "`actctl apply`, cold", get: func(r round) time.Duration { return r.cold }, floor: func(r round) time.Duration { return r.floor }, ratio: true, limit: 1.5, target: "<= 1.5x write floor"},
	{work: "`actctl apply`, no change", get: func(r round) time.Duration { return r.noop }, floor: func(r round) time.Duration { return r.startNoop }, limit: 10, target: "<= start floor + 10 ms"},
	{work: "`actctl apply`, one skill edited (3 files)", get: func(r round) time.Duration { return r.edit }, floor: func(r round) time.Duration { return r.startEdit }, limit: 20, target: "<= start floor + 20 ms"},
}

func report(w io.Writer, rounds []round, load0, load1 string) {
	host, _ := os.Hostname()
	fmt.Fprintf(w, "%d rounds, %s, %s/%s, %d CPUs, load average %s at the start, %s at the end (host %s)\n\n",
		len(rounds), time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), load0, load1, host)
	fmt.Fprintln(w, "| work | min | median | max | vs floor (median of rounds) | target | status |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, rw := range rows {
		ds := make([]float64, len(rounds))
		for i, r := range rounds {
			ds[i] = ms(rw.get(r))
		}
		sort.Float64s(ds)
		vs, status := "", ""
		if rw.floor != nil {
			cmp := make([]float64, len(rounds))
			for i, r := range rounds {
				if rw.ratio {
					cmp[i] = ms(rw.get(r)) / ms(rw.floor(r))
				} else {
					cmp[i] = ms(rw.get(r)) - ms(rw.floor(r))
				}
			}
			sort.Float64s(cmp)
			m := median(cmp)
			if rw.ratio {
				vs = fmt.Sprintf("%.2fx", m)
			} else {
				vs = fmt.Sprintf("+%.1f ms", m)
			}
			status = "met"
			if m > rw.limit {
				status = "not met"
			}
		}
		fmt.Fprintf(w, "| %s | %.1f ms | %.1f ms | %.1f ms | %s | %s | %s |\n", rw.work, ds[0], median(ds), ds[len(ds)-1], vs, rw.target, status)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// loadavg returns the 1-, 5- and 15-minute load averages, or "?".
func loadavg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}
