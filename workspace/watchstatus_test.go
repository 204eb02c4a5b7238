package workspace

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// TestStatusSyncedAfterWatchCycle: a watch cycle that is a plain apply
// (up's, on every agent) records its inputs as a plain apply does, so
// that status while up runs reads every agent Synced from the state
// (synced) instead of rendering and reading them all: what
// reconcile.Status says. A cycle of some agents only (up AGENT...)
// records nothing.
func TestStatusSyncedAfterWatchCycle(t *testing.T) {
	for _, tc := range []struct {
		name   string
		only   []string
		synced bool
	}{
		{"every agent", nil, true},
		{"one agent", []string{"helper"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, _, _ := newWorkspace(t, map[string]string{"actant.cue": twoAgents})
			watchOneCycle(t, WatchOptions{Options: o, Root: o.Dir, Debounce: time.Millisecond, Only: tc.only})
			cfg := loadRO(t, o)
			fast := synced(cfg)
			if (fast != nil) != tc.synced {
				t.Fatalf("synced after the cycle: %+v, want it %v", fast, tc.synced)
			}
			if fast == nil {
				return
			}
			slow, err := reconcile.Status(cfg, reconcile.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("synced:\n%+v\nrendered:\n%+v", fast, slow)
			}
		})
	}
}

// watchOneCycle runs Watch with wo until its first cycle has ended.
func watchOneCycle(t *testing.T, wo WatchOptions) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cycled := make(chan error, 1)
	wo.After = func(_ *schema.Config, _ *Result, err error) {
		select {
		case cycled <- err:
		default:
		}
	}
	done := make(chan error, 1)
	go func() { done <- Watch(ctx, wo) }()
	if err := <-cycled; err != nil {
		t.Fatalf("cycle: %v", err)
	}
	cancel()
	if err := <-done; err != nil && err != context.Canceled {
		t.Fatalf("watch: %v", err)
	}
}
