package reconcile

import (
	"context"
	"errors"
	"fmt"
)

// ErrInterrupted is wrapped by the error Apply returns when its context
// was cancelled (SIGINT/SIGTERM) and it stopped at a safe point: before
// the first write, or between writes with the journal in place, which the
// next apply finishes exactly as after a kill.
var ErrInterrupted = errors.New("apply interrupted")

// interrupted returns nil while ctx is live, else an error saying where
// the run stopped (what is "nothing was written", or how far it got).
func interrupted(ctx context.Context, what string) error {
	if ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrInterrupted, what)
}

// interruptedMidway is the error for a run stopped after its journal was
// written: done of total file writes were made.
func interruptedMidway(ctx context.Context, done, total int) error {
	return interrupted(ctx, fmt.Sprintf("%d of %d files written; the journal %s/%s records the rest: run apply again to finish",
		done, total, MetaDir, PendingFile))
}
