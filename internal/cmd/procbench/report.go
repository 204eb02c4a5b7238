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

// row is one line of the table: a kind of work and, unless it is a floor,
// how it compares with the floor run beside it (a ratio, or a difference
// in ms) and the target.
type row struct {
	work   work
	name   string
	ratio  bool    // compare as a ratio, else as a difference
	limit  float64 // the target: a ratio, or ms over the floor; 0 for a floor
	target string
}

var rows = []row{
	{work: startFloor, name: "start floor (links cuelang.org/go, does nothing)"},
	{work: evalFloor, name: "eval floor (links only cuelang.org/go: loads, evaluates, exports the config with the schema)"},
	{work: help, name: "`actctl --help`", ratio: true, limit: 1.1, target: "<= 1.1x start floor"},
	{work: writeFloorWork, name: "write floor (same files: dirs first, parallel temp+fsync+rename)"},
	{work: cold, name: "`actctl apply`, cold", ratio: true, limit: 1.5, target: "<= 1.5x write floor"},
	{work: noop, name: "`actctl apply`, no change", limit: 10, target: "<= start floor + 10 ms"},
	{work: edit, name: "`actctl apply`, one skill edited (2 files)", limit: 15, target: "<= eval floor + 15 ms"},
}

func report(w io.Writer, all samples, runs, pairs int, tags, load0, load1 string) {
	if tags == "" {
		tags = "none"
	}
	fmt.Fprintf(w, "%d rounds (-k %d), %s, %s/%s, %d CPUs, actctl built with tags %s, load average %s at the start, %s at the end\n\n",
		runs, pairs, time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), tags, load0, load1)
	fmt.Fprintln(w, "| work | runs | min | median | max | vs the floor beside it (median) | target | status |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, rw := range rows {
		ss := all[rw.work]
		ds, cmp := make([]float64, len(ss)), make([]float64, len(ss))
		for i, s := range ss {
			ds[i] = ms(s.v)
			if rw.ratio {
				cmp[i] = ms(s.v) / ms(s.floor)
			} else {
				cmp[i] = ms(s.v) - ms(s.floor)
			}
		}
		sort.Float64s(ds)
		sort.Float64s(cmp)
		vs, status := "", ""
		if rw.limit != 0 {
			m := median(cmp)
			if rw.ratio {
				vs = fmt.Sprintf("%.2fx", m)
			} else {
				vs = fmt.Sprintf("%+.1f ms", m)
			}
			status = "met"
			if m > rw.limit {
				status = "not met"
			}
		}
		fmt.Fprintf(w, "| %s | %d | %.1f ms | %.1f ms | %.1f ms | %s | %s | %s |\n", rw.name, len(ss), ds[0], median(ds), ds[len(ds)-1], vs, rw.target, status)
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
