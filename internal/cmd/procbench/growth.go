package main

import (
	"fmt"
	"math"
)

// growth is how a measure grows with the number of agents n, fitted to
// its runs at several sizes: t(n) = fixed + perAgent*n by least squares
// (the fixed part is the process start, the per-agent part what each
// agent costs), and exponent, the slope of log t over log n between the
// two largest sizes (1 is linear; above it, a step grows faster than the
// team: docs/benchmarks.md, "Fitted growth").
type growth struct {
	fixed, perAgent float64 // seconds, seconds per agent
	exponent        float64
}

// fitGrowth fits growth to the times ts (seconds) at the sizes ns, in
// increasing order; false with fewer than two sizes or a time not above 0.
func fitGrowth(ns []int, ts []float64) (growth, bool) {
	k := len(ns)
	if k < 2 || len(ts) != k {
		return growth{}, false
	}
	var sn, st, snn, snt float64
	for i, n := range ns {
		if ts[i] <= 0 {
			return growth{}, false
		}
		x := float64(n)
		sn, st, snn, snt = sn+x, st+ts[i], snn+x*x, snt+x*ts[i]
	}
	f := float64(k)
	den := f*snn - sn*sn
	if den == 0 {
		return growth{}, false
	}
	g := growth{perAgent: (f*snt - sn*st) / den}
	g.fixed = (st - g.perAgent*sn) / f
	a, b := k-2, k-1
	g.exponent = math.Log(ts[b]/ts[a]) / math.Log(float64(ns[b])/float64(ns[a]))
	return g, true
}

// String is the fit as the scale table prints it.
func (g growth) String() string {
	return fmt.Sprintf("%.3f s + %.3f ms/agent, n^%.2f", g.fixed, g.perAgent*1000, g.exponent)
}
