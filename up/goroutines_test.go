package up

import (
	"runtime"
	"testing"
)

// TestIdleServiceGoroutines: an idle service holds a bounded number of
// goroutines of up's process, whatever waits on its backend's end does
// so without a goroutine of its own (acpclient.Client.AfterDone,
// launch.Spec.OnExit): the ACP connection's reader, the reaper, the
// stderr copy and its supervisor (docs/runtime.md, "Limits"; was ten,
// then seven with the ACP SDK's connection and its four).
func TestIdleServiceGoroutines(t *testing.T) {
	const n, perAgent = 10, 4
	h := newHarness(t, nil)
	before := runtime.NumGoroutine()
	var specs []Spec
	for i := range n {
		specs = append(specs, service(t, "svc-"+string(rune('a'+i))))
	}
	h.m.Sync(specs)
	for _, s := range specs {
		h.wait("process:start", s.Name)
	}
	// Whatever ran the starts may still be ending: the bound is on the
	// count at any time from now, so a few more are allowed in all.
	if grown := runtime.NumGoroutine() - before; grown > n*perAgent+n/2 {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines for %d idle services (want <= %d each)\n%s", grown, n, perAgent, buf[:runtime.Stack(buf, true)])
	}
}
