package reconcile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/lockedfile"
)

// DefaultLockWait is how long Lock waits for another apply or proxy to
// finish before giving up.
const DefaultLockWait = 2 * time.Second

// ErrLocked is wrapped by the error Lock returns when another process holds
// the workspace lock past the wait.
var ErrLocked = errors.New("workspace locked")

// WorkspaceLock is a held .actant/lock. The lock is a kernel lock on the
// file (internal/lockedfile), so it is released by the kernel when the holder dies (kill -9
// included): a stale lock file never blocks anyone. The file holds the
// holder's pid only so that a waiting process can name it.
type WorkspaceLock struct {
	f    *os.File
	path string
}

// Lock takes the workspace lock of root, creating .actant/ when needed. It
// polls for up to wait (DefaultLockWait when 0) and then fails with
// "workspace locked by pid N (another actctl apply?)". apply and proxy use
// it so that they serialise on one workspace.
func Lock(ctx context.Context, root string, wait time.Duration) (*WorkspaceLock, error) {
	if wait <= 0 {
		wait = DefaultLockWait
	}
	dir := filepath.Join(root, MetaDir)
	if err := layout.NoLinks(root, filepath.Join(dir, LockFile)); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, layout.NotDir(dir, fmt.Errorf("lock %s: %w", dir, err))
	}
	path := filepath.Join(dir, LockFile)
	var l *WorkspaceLock
	err := lockedfile.Wait(ctx, wait, 5*time.Millisecond, 80*time.Millisecond, func() (err error) {
		l, err = tryLock(path)
		return err
	})
	switch {
	case err == nil:
		return l, nil
	case errors.Is(err, lockedfile.ErrWouldBlock):
		// The file's text is printed only as a pid: it may come from
		// elsewhere (docs/design.md, "What actctl trusts").
		pid := "unknown"
		if b, rerr := os.ReadFile(path); rerr == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && n > 0 {
				pid = strconv.Itoa(n)
			}
		}
		return nil, fmt.Errorf("%w by pid %s (another actctl apply?): %s", ErrLocked, pid, path)
	default:
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
}

// tryLock makes one attempt. After the flock succeeds it checks that the
// path still names the locked file: a holder that removed the lock file
// (see Release with remove) would otherwise leave us holding a lock on an
// unlinked file while a third process locks a new one.
func tryLock(path string) (*WorkspaceLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockedfile.TryLock(f); err != nil {
		f.Close()
		return nil, err
	}
	fi, err1 := f.Stat()
	pi, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(fi, pi) {
		f.Close()
		return nil, lockedfile.ErrWouldBlock // lost a race with a remover; retry
	}
	// Record our pid for the message a waiting process prints. Not synced:
	// it is a hint, and the lock itself lives in the kernel. Written only
	// when the file does not already hold it (a process that applies again
	// — watch mode, proxy — leaves the file and its mtime alone).
	want := []byte(strconv.Itoa(os.Getpid()) + "\n")
	have := make([]byte, len(want)+1)
	if n, _ := f.ReadAt(have, 0); n != len(want) || !bytes.Equal(have[:n], want) {
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt(want, 0)
		}
	}
	return &WorkspaceLock{f: f, path: path}, nil
}

// Unlock releases the lock. It is safe to call twice.
func (l *WorkspaceLock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close() // closing the descriptor drops the flock
	l.f = nil
	return err
}

// removeAndUnlock deletes the lock file while still holding the lock (so
// no waiter can be left with a lock on the unlinked file, see tryLock) and
// then releases it. Used when the workspace has no agents left.
func (l *WorkspaceLock) removeAndUnlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	rerr := os.Remove(l.path)
	uerr := l.Unlock()
	if rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		return rerr
	}
	return uerr
}
