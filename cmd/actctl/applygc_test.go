package main

import (
	"runtime/debug"
	"testing"
)

// TestFewerCollections checks that an apply raises GOGC to
// oneShotGCPercent, and that GOGC in the environment wins.
func TestFewerCollections(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	fewerCollections()
	if got := debug.SetGCPercent(100); got != oneShotGCPercent {
		t.Errorf("GOGC unset: percent %d, want %d", got, oneShotGCPercent)
	}
	t.Setenv("GOGC", "150")
	fewerCollections()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=150 in the environment: percent changed to %d", got)
	}
}
