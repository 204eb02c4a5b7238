// Package par runs independent pieces of work on a bounded number of
// goroutines. It exists so that the reconciler (file I/O bound by system
// calls and fsync latency) and the renderer (CPU bound) share one worker
// pool instead of each carrying its own.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// For calls f(i) for every i in [0, n) on at most workers goroutines and
// returns when every call has returned. Indices are handed out in
// increasing order; with workers <= 1 (or n <= 1) the calls run one after
// the other, in index order, on the calling goroutine. f must be safe to
// call concurrently and record its results by index.
func For(n, workers int, f func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	var next atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// CPU is the width for CPU-bound work: one worker per usable core.
func CPU() int { return runtime.GOMAXPROCS(0) }

// IO is the width for work bound by system calls and fsync latency rather
// than CPU, where more workers than cores pay.
func IO() int { return runtime.GOMAXPROCS(0) * 4 }
