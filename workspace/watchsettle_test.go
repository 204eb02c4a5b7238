package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/internal/testutil"
	"github.com/actctl/actctl/schema"
)

// TestWatchRecordsRacyInputsOnceSettled: a cycle that applies an
// actant.cue saved just before it (every edit under up: racy) records no
// inputs, so status would render; the watch runs once more when the
// input has settled (on its clock), and that cycle records them: status
// is fast again with nothing else happening.
func TestWatchRecordsRacyInputsOnceSettled(t *testing.T) {
	o, _, _ := newWorkspace(t, map[string]string{"actant.cue": twoAgents})
	clk := clock.NewFake(time.Now())
	// Saved now, on the watch's clock: racy for the first cycle.
	now := clk.Now()
	if err := os.Chtimes(filepath.Join(o.Dir, "actant.cue"), now, now); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cycles := make(chan error, 4)
	wo := WatchOptions{Options: o, Root: o.Dir, Debounce: time.Millisecond, Clock: clk,
		After: func(_ *schema.Config, _ *Result, err error) { cycles <- err }}
	done := make(chan error, 1)
	go func() { done <- Watch(ctx, wo) }()
	defer func() {
		cancel()
		if err := <-done; err != nil && err != context.Canceled {
			t.Errorf("watch: %v", err)
		}
	}()
	if err := <-cycles; err != nil {
		t.Fatalf("first cycle: %v", err)
	}
	cfg := loadRO(t, o)
	if got := synced(cfg); got != nil {
		t.Fatalf("synced after a racy cycle: %+v", got)
	}
	armed := make(chan struct{})
	go func() { clk.WaitPending(1); close(armed) }() // the run once the input settled
	if _, ok := testutil.Within(armed); !ok {
		t.Fatal("no run armed for when the input settles")
	}
	clk.Advance(time.Hour)
	if err := <-cycles; err != nil {
		t.Fatalf("second cycle: %v", err)
	}
	if got := synced(cfg); got == nil {
		t.Fatal("synced: nil after the input settled and the watch ran again")
	}
}
