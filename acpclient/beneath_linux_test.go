package acpclient

import "testing"

// eachLookup runs f with the kernel's openat2, then with the walker alone
// (as on a kernel without openat2).
func eachLookup(t *testing.T, f func(t *testing.T)) {
	t.Run("openat2", f)
	if noOpenat2.Load() {
		t.Log("this kernel has no openat2: the walker served both runs")
	}
	noOpenat2.Store(true)
	defer noOpenat2.Store(false)
	t.Run("walker", f)
}
