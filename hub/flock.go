package hub

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/actctl/actctl/internal/lockedfile"
)

// lockDir takes an exclusive lock on dir/.lock, so that concurrent actctl
// processes fetching into one cache directory serialize instead of
// corrupting it. It polls (a blocked lock cannot be cancelled) until ctx
// ends or the wait limit passes.
func lockDir(ctx context.Context, dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := dir + "/.lock"
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("hub cache lock %s: %w", p, err)
	}
	err = lockedfile.Wait(ctx, lockWait, time.Millisecond, 100*time.Millisecond, func() error { return lockedfile.TryLock(f) })
	switch {
	case err == nil:
		return func() { _ = lockedfile.Unlock(f); f.Close() }, nil
	case errors.Is(err, ctx.Err()):
		f.Close()
		return nil, err
	case errors.Is(err, lockedfile.ErrWouldBlock):
		f.Close()
		return nil, fmt.Errorf("hub cache %s is locked by another actctl process (waited %s)", dir, lockWait)
	default:
		f.Close()
		return nil, fmt.Errorf("hub cache lock %s: %w", p, err)
	}
}

// tryLockDir takes the lock of lockDir only if it is free right now.
func tryLockDir(dir string) (func(), bool) {
	f, err := os.OpenFile(dir+"/.lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false
	}
	if lockedfile.TryLock(f) != nil {
		f.Close()
		return nil, false
	}
	return func() { _ = lockedfile.Unlock(f); f.Close() }, true
}
