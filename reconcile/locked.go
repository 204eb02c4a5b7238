package reconcile

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/actctl/actctl/internal/layout"
)

// Locked runs fn holding the workspace lock of root (see Lock), so that
// what fn changes in .actant cannot race an apply or another Locked: the
// ad-hoc agents (schema.RecordAdhoc) are a read-modify-write of
// .actant/adhoc.json, and an apply removes the temporary files it finds
// there as leftovers of a killed run. Released as apply releases it: when
// .actant is left with nothing of actctl's, it goes with the lock file.
func Locked(ctx context.Context, root string, fn func() error) error {
	l, err := Lock(ctx, root, 0)
	if err != nil {
		return err
	}
	defer l.release(root)
	return fn()
}

// release unlocks the workspace at root. With no state, no journal and
// nothing else of actctl's in .actant (no agents left, no ad-hoc agent
// recorded), the workspace carries no actctl trace: the caches, the lock
// file and .actant are removed first.
func (l *WorkspaceLock) release(root string) {
	if l == nil || l.f == nil {
		return
	}
	if noTrace(root) {
		_ = os.Remove(metaPath(root, layout.Inputs))
		_ = os.Remove(metaPath(root, layout.ConfigCache))
		_ = l.removeAndUnlock()
		removeMetaIfEmpty(root)
		return
	}
	_ = l.Unlock()
}

// noTrace reports whether .actant at root holds nothing that matters
// beyond the lock: no state, no journal, only what
// onlyLockAndEmptyBackup allows.
func noTrace(root string) bool {
	for _, f := range []string{StateFile, PendingFile} {
		if _, err := os.Stat(metaPath(root, f)); !errors.Is(err, os.ErrNotExist) {
			return false
		}
	}
	entries, _ := os.ReadDir(filepath.Join(root, MetaDir))
	return onlyLockAndEmptyBackup(root, entries)
}
