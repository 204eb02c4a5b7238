package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/actctl/actctl/internal/par"
)

// DirSyncs batches directory fsyncs. A rename, creation or removal is
// durable once the directory holding the entry has been fsynced; a writer
// that changes many entries in few directories (apply puts 600 skill
// files into 600 new directories below three parents) need not fsync a
// directory once per entry: WriteWith (with Options.Dirs), and the
// MkdirAll, Remove and RemoveEmptyDirs methods, add the directory here
// instead, and Sync fsyncs each one once. Until Sync returns, those
// changes are done but not yet durable: the caller must not record them
// anywhere it relies on after a power loss (see reconcile's executor for
// the ordering that makes this safe). A nil *DirSyncs syncs at once.
//
// The zero value is ready to use; it is safe for concurrent use.
type DirSyncs struct {
	mu   sync.Mutex
	dirs map[string]bool
}

// syncOrAdd fsyncs dir now when s is nil, else adds it to s.
func (s *DirSyncs) syncOrAdd(dir string) error {
	if s == nil {
		return syncDir(dir)
	}
	s.mu.Lock()
	if s.dirs == nil {
		s.dirs = map[string]bool{}
	}
	s.dirs[dir] = true
	s.mu.Unlock()
	return nil
}

// Sync fsyncs every directory added since the last Sync once, deepest
// first on up to workers goroutines, and empties the set; it returns when
// all are done. A directory that no longer exists is skipped: it holds no
// entry to make durable, and its own removal, when this writer made it,
// put its parent in the set.
func (s *DirSyncs) Sync(workers int) error {
	s.mu.Lock()
	list := make([]string, 0, len(s.dirs))
	for d := range s.dirs {
		list = append(list, d)
	}
	s.dirs = nil
	s.mu.Unlock()
	list = deepestFirst(list)
	errs := make([]error, len(list))
	par.For(len(list), workers, func(i int) {
		if err := syncDir(list[i]); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs[i] = fmt.Errorf("fsync %s: %w", list[i], err)
		}
	})
	return errors.Join(errs...)
}

// observer, when set, is told of every fsync this package makes: the
// path (for a file, the path its content is renamed to) and whether it is
// a directory.
var observer atomic.Pointer[func(path string, dir bool)]

// ObserveSyncs makes f be called right before every fsync this package
// makes, until the returned function is called. It exists for tests that
// count fsyncs or check their order against other events; f must be safe
// for concurrent use.
func ObserveSyncs(f func(path string, dir bool)) (stop func()) {
	observer.Store(&f)
	return func() { observer.Store(nil) }
}
