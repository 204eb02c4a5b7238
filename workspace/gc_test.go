package workspace

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/watch"
)

// TestFewerCollections checks that an apply raises GOGC to
// oneShotGCPercent and keeps it while the heap is small, and that GOGC in
// the environment wins.
func TestFewerCollections(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	runtime.GC() // what earlier tests left is not this test's heap
	settle := FewerCollections()
	if got := debug.SetGCPercent(oneShotGCPercent); got != oneShotGCPercent {
		t.Errorf("GOGC unset: percent %d, want %d", got, oneShotGCPercent)
	}
	settle()
	if got := debug.SetGCPercent(100); got != oneShotGCPercent {
		t.Errorf("heap of %d bytes (under %d): percent %d after settle, want %d", heapBytes(), largeHeap, got, oneShotGCPercent)
	}
	t.Setenv("GOGC", "150")
	FewerCollections()()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=150 in the environment: percent changed to %d", got)
	}
}

// TestFewerCollectionsLargeHeap checks that a heap over largeHeap once
// the config is loaded restores the default.
func TestFewerCollectionsLargeHeap(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	runtime.GC()
	settle := FewerCollections()
	big := make([]byte, 2*largeHeap)
	settle()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("heap of %d bytes: percent %d after settle, want the default back", heapBytes(), got)
	}
	// Live until here: a GC that the allocation itself may start would
	// free it during settle otherwise (seen in CI: 1.7 MB counted).
	runtime.KeepAlive(big)
}

// gcPercent is the GOGC percent now, left as it is.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// watchPercents runs Watch on a workspace of two agents; after, called
// by each cycle, stands for what the workspace holds. It returns the
// GOGC percent after each cycle on the channel, and stop, which ends the
// watch.
func watchPercents(t *testing.T, after func(cycle int)) (percents <-chan int, dir string, stop func()) {
	t.Helper()
	o, _, _ := newWorkspace(t, map[string]string{"actant.cue": twoAgents})
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan int)
	done := make(chan error, 1)
	cycle := 0
	go func() {
		done <- Watch(ctx, WatchOptions{Options: o, Root: o.Dir, Debounce: time.Millisecond,
			After: func(*schema.Config, *Result, error) {
				cycle++
				after(cycle)
			},
			Report: func(c watch.Cycle) {
				if c.Kind != watch.CycleApply {
					return
				}
				select {
				case out <- gcPercent():
				case <-ctx.Done(): // stopped: nobody reads any more
				}
			}})
	}()
	return out, o.Dir, func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("watch: %v", err)
		}
	}
}

// largeSink holds what TestWatchGCLargeHeap's workspace keeps live.
var largeSink []byte

// TestWatchGCLargeHeap: a watch whose live heap is over largeHeap goes
// back to the default GOGC (on the old code it kept 400 whatever the
// heap: 1.1 GB at 10,000 agents where the default holds 0.43), and gives
// the percent it found back when it ends (issue #37 item 9).
func TestWatchGCLargeHeap(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	runtime.GC()
	percents, _, stop := watchPercents(t, func(int) {
		largeSink = make([]byte, 2*largeHeap) // a large workspace's config
		runtime.GC()                          // marked live, as a cycle's collections mark it
	})
	if got := <-percents; got != 100 {
		t.Errorf("live heap of %d bytes (over %d): GOGC %d after the cycle, want the default, 100", liveHeap(), largeHeap, got)
	}
	stop()
	largeSink = nil
	if got := gcPercent(); got != 100 {
		t.Errorf("after the watch: GOGC %d, want 100 as it found it", got)
	}
}

// TestWatchGCSmallHeap: a small workspace keeps watchGCPercent over its
// cycles (the garbage of a cycle is not its size); GOGC in the
// environment wins.
func TestWatchGCSmallHeap(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	runtime.GC()
	percents, dir, stop := watchPercents(t, func(int) {})
	if got := <-percents; got != watchGCPercent {
		t.Errorf("first cycle: GOGC %d, want %d", got, watchGCPercent)
	}
	writeFiles(t, dir, map[string]string{"actant.cue": twoAgents + "// an edit\n"})
	if got := <-percents; got != watchGCPercent {
		t.Errorf("after an edit: GOGC %d, want %d (live heap %d, objects %d)", got, watchGCPercent, liveHeap(), heapBytes())
	}
	stop()

	t.Setenv("GOGC", "150")
	g := newWatchGC()
	largeSink = make([]byte, 2*largeHeap)
	runtime.GC()
	g.settle(true)
	largeSink = nil
	if got := gcPercent(); got != 100 {
		t.Errorf("GOGC=150 in the environment: percent changed to %d", got)
	}
}
