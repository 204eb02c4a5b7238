//go:build !unix

package hub

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// lockDir takes an exclusive lock on dir/.lock by creating it exclusively
// (no flock here); a crashed holder leaves the file behind, which the
// message names so it can be removed.
func lockDir(ctx context.Context, dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := dir + "/.lock"
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			return func() { os.Remove(p) }, nil
		}
		if !errors.Is(err, fs.ErrExist) || time.Now().After(deadline) {
			return nil, fmt.Errorf("hub cache lock %s: %w (remove it if no actctl is running)", p, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// tryLockDir takes the lock of lockDir only if it is free right now.
func tryLockDir(dir string) (func(), bool) {
	p := dir + "/.lock"
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, false
	}
	f.Close()
	return func() { os.Remove(p) }, true
}
