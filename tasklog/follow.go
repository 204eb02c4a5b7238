package tasklog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/fsnotify/fsnotify"

	"github.com/actctl/actctl/model"
)

// Follow emits each complete line of the file at path from byte offset
// on, as it is appended, until ctx ends (it then returns nil). The line
// is given without its newline and is valid only during the call; a last
// line without its newline waits for it. The file may not exist yet: it
// is picked up when it is created, from its start, and so are the
// directories leading to it. Follow sleeps on file system notifications
// (fsnotify on the nearest existing directory of path), never on a timer.
// The file is expected to grow only, as task logs do; when it is removed,
// a file created again at path is followed from its start.
func Follow(ctx context.Context, path string, offset int64, emit func(line []byte)) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("follow %s: %w", path, err)
	}
	defer w.Close()
	f := &follower{path: filepath.Clean(path), offset: offset, emit: emit, w: w}
	defer f.closeFile()
	for {
		// Watch first, then read: whatever is written after the read
		// wakes the select below.
		if err := f.watch(); err != nil {
			return err
		}
		if err := f.drain(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case ev := <-w.Events:
			f.removed(ev)
		case err := <-w.Errors:
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				return fmt.Errorf("follow %s: %w", path, err)
			}
			// Events were lost: the drain above catches up.
		}
	}
}

type follower struct {
	path    string
	offset  int64 // where the next read starts when the file is opened
	emit    func([]byte)
	w       *fsnotify.Watcher
	watched string   // the directory watched, "" for none
	file    *os.File // open once it exists
	partial []byte   // a last line still waiting for its newline
}

// watch puts the watch on the deepest existing directory of path's
// parents, repeating until no deeper one has appeared meanwhile.
func (f *follower) watch() error {
	for {
		d := deepestDir(filepath.Dir(f.path))
		if d == f.watched {
			return nil
		}
		if err := f.w.Add(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("follow %s: watch %s: %w", f.path, d, err)
		}
		f.watched = d
		if testHookWatch != nil {
			testHookWatch(d)
		}
	}
}

// testHookWatch, when set by a test, is told each directory Follow starts
// watching: the test's signal that a file created from then on is seen
// through the watch.
var testHookWatch func(dir string)

// deepestDir is d, or its nearest ancestor that exists as a directory.
func deepestDir(d string) string {
	for {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return d
		}
		d = up
	}
}

// removed forgets the watched directory or the open file when ev removed
// or renamed it (fsnotify drops a removed directory's watch).
func (f *follower) removed(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
		return
	}
	switch filepath.Clean(ev.Name) {
	case f.watched:
		f.watched = ""
	case f.path:
		f.closeFile()
		f.offset, f.partial = 0, nil
	}
}

// drain emits the complete lines appended since the last call.
func (f *follower) drain() error {
	if f.file == nil {
		file, err := model.OpenRegular(f.path) // never a pipe or a device
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("follow: %w", err)
		}
		if _, err := file.Seek(f.offset, io.SeekStart); err != nil {
			file.Close()
			return fmt.Errorf("follow %s: %w", f.path, err)
		}
		f.file = file
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := f.file.Read(buf)
		f.offset += int64(n)
		f.partial = f.emitLines(append(f.partial, buf[:n]...))
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("follow %s: %w", f.path, err)
		}
	}
}

// emitLines emits the complete lines of data and returns the rest.
func (f *follower) emitLines(data []byte) []byte {
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return data
		}
		f.emit(data[:i])
		data = data[i+1:]
	}
}

func (f *follower) closeFile() {
	if f.file != nil {
		f.file.Close()
		f.file = nil
	}
}
