package workspace

import (
	"runtime"
	"runtime/debug"
	"testing"
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

// TestFewerCollectionslargeHeap checks that a heap over largeHeap once
// the config is loaded restores the default.
func TestFewerCollectionslargeHeap(t *testing.T) {
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
