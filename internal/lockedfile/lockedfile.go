// Package lockedfile takes exclusive, advisory locks on open files, the
// one way actctl serialises processes: the workspace lock (.actant/lock,
// package reconcile) and the hub cache lock (package hub) both use it.
//
// The lock lives in the kernel (flock(2) on Unix, LockFileEx on Windows),
// so it is released when its holder dies, kill -9 included: a stale lock
// file never blocks anyone. On other systems TryLock fails with
// ErrNotSupported.
package lockedfile

import (
	"context"
	"errors"
	"os"
	"time"
)

// ErrWouldBlock is returned by TryLock, and by Wait once its time is up,
// when another process holds the lock.
var ErrWouldBlock = errors.New("file is locked by another process")

// ErrNotSupported is returned by TryLock on a system without file locks.
var ErrNotSupported = errors.New("file locks are not supported on this OS")

// TryLock takes an exclusive lock on f without waiting: ErrWouldBlock
// when another process (or another descriptor) holds it. Closing f
// releases the lock.
func TryLock(f *os.File) error { return tryLock(f) }

// Unlock releases the lock TryLock took on f.
func Unlock(f *os.File) error { return unlock(f) }

// Wait calls try until it returns anything but ErrWouldBlock, ctx ends
// (ctx.Err()), or wait has passed (ErrWouldBlock). A blocked lock cannot
// be cancelled, so it polls: the pause between tries starts at first and
// doubles up to most.
func Wait(ctx context.Context, wait, first, most time.Duration, try func() error) error {
	deadline := time.Now().Add(wait)
	for delay := first; ; delay = min(delay*2, most) {
		err := try()
		if !errors.Is(err, ErrWouldBlock) || time.Now().After(deadline) {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
