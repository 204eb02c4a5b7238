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
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
