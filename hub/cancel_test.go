//go:build unix

package hub

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestEnsureCancelled: a cancelled context surfaces as context.Canceled
// through the hub's error wrapping, so callers can tell an interrupt from
// a failure.
func TestEnsureCancelled(t *testing.T) {
	r := newHubRepo(t)
	_, _, load := workspace(t, fmt.Sprintf("hub: h: {url: %q}\n", "file://"+r.dir))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Ensure(ctx, load(), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Ensure with a cancelled context: %v, want it to wrap context.Canceled", err)
	}
}
