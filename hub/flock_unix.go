//go:build unix

package hub

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
)

// lockDir takes an exclusive lock on dir/.lock, so that concurrent actctl
// processes fetching into one cache directory serialize instead of
// corrupting it. It polls (a blocked flock cannot be cancelled) until ctx
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
	deadline := time.Now().Add(lockWait)
	for delay := time.Millisecond; ; delay = min(delay*2, 100*time.Millisecond) {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
		}
		if err != syscall.EWOULDBLOCK || time.Now().After(deadline) {
			f.Close()
			if err == syscall.EWOULDBLOCK {
				return nil, fmt.Errorf("hub cache %s is locked by another actctl process (waited %s)", dir, lockWait)
			}
			return nil, fmt.Errorf("hub cache lock %s: %w", p, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(delay):
		}
	}
}

// tryLockDir takes the lock of lockDir only if it is free right now.
func tryLockDir(dir string) (func(), bool) {
	f, err := os.OpenFile(dir+"/.lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		f.Close()
		return nil, false
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, true
}
