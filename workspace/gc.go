package workspace

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
)

// oneShotGCPercent is the GOGC of an apply that is not --watch: it
// evaluates the config and exits, and on everyday configs its live heap
// stays small (~6 MB on the 406-file job of docs/benchmarks.md), where
// the default GOGC=100 spends four collections on one edited apply (a
// fifth of its CPU: docs/benchmarks.md, "One edit of actant.cue"); at 400
// the peak grows by about 1 MiB.
const oneShotGCPercent = 400

// largeHeap is the heap, once the config is loaded, above which an apply
// goes back to the default GOGC: a large workspace gains no time from
// fewer collections, and its peak memory would grow by half
// (docs/benchmarks.md, "10,000 agents"). The job's heap is ~10 MB there,
// a 1,000-agent workspace's ~27 MB.
const largeHeap = 16 << 20

// FewerCollections sets oneShotGCPercent unless GOGC is set in the
// environment, which wins; settle, called once the config is loaded,
// restores the default when the heap is over largeHeap.
func FewerCollections() (settle func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(oneShotGCPercent)
	return func() {
		if heapBytes() > largeHeap {
			debug.SetGCPercent(old)
		}
	}
}

// heapBytes is the memory of the heap's objects, live or not yet swept
// (runtime/metrics: read without stopping the world).
func heapBytes() uint64 { return readBytes("/memory/classes/heap/objects:bytes") }

// liveHeap is the heap the last collection found live (0 before one).
func liveHeap() uint64 { return readBytes("/gc/heap/live:bytes") }

// readBytes reads one runtime metric of bytes; 0 if it has none.
func readBytes(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// watchGCPercent is the GOGC of a watch (apply --watch, up's cycles)
// while its workspace is small: a cycle of 100 agents allocates ~20 MB
// and keeps under 1 MB, and the default GOGC=100 collects about five
// times per cycle, more than a quarter of its CPU (docs/benchmarks.md,
// "Watch latency").
const watchGCPercent = 400

// watchGC bounds a watch's memory: it runs at watchGCPercent until the
// heap is large (over largeHeap), then at the default GOGC for the rest
// of the watch, as a one-shot apply does (FewerCollections), but decided
// every cycle: at 10,000 agents GOGC 400 held 1.1 GB where the default
// holds 0.43 GB, for ~10% less latency (docs/benchmarks.md, "apply
// --watch at scale"). GOGC in the environment wins.
type watchGC struct {
	on   bool   // GOGC is not in the environment: the watch sets it
	def  int    // the percent before the watch set its own
	peak uint64 // the largest heap seen: the workspace's size
	set  int    // the percent set now
}

// newWatchGC sets watchGCPercent unless GOGC is in the environment.
func newWatchGC() *watchGC {
	if os.Getenv("GOGC") != "" {
		return &watchGC{}
	}
	return &watchGC{on: true, def: debug.SetGCPercent(watchGCPercent), set: watchGCPercent}
}

// done gives back the percent the watch found.
func (g *watchGC) done() {
	if g.on {
		debug.SetGCPercent(g.def)
	}
}

// settle is called with the config of a cycle loaded and again once the
// cycle applied it; fresh is true right after the watch's first load.
// Then the heap's objects are measured, as a one-shot apply measures its
// fresh heap; else the live heap the last collection marked, which
// counts no garbage: a small workspace's garbage between two collections
// at GOGC 400 (up to 16 MiB) does not make it large. The largest measure
// so far decides, so that a cycle measured just after a collection of
// the old config does not set 400 again.
func (g *watchGC) settle(fresh bool) {
	if !g.on {
		return
	}
	m := liveHeap()
	if fresh {
		m = max(m, heapBytes())
	}
	g.peak = max(g.peak, m)
	want := watchGCPercent
	if g.peak > largeHeap {
		want = g.def
	}
	if want != g.set {
		debug.SetGCPercent(want)
		g.set = want
	}
}
