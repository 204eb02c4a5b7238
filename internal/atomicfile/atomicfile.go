// Package atomicfile writes and removes files so that a crash (kill -9,
// power loss) at any moment leaves each file either wholly old or wholly
// new, never truncated (README, "What apply writes").
//
// Every write goes to a temporary file in the destination's own directory
// (so the final rename never crosses a filesystem), is fsynced, renamed over
// the destination, and the directory is fsynced so the rename itself is
// durable (or, with a DirSyncs, the directory is fsynced once for a whole
// batch of changes in it: see DirSyncs). Temporary files carry the TempPrefix name prefix so that a later
// run can recognise and delete the ones a killed process left behind.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// TempPrefix starts the name of every temporary file Write creates. It is
// exported so that callers (and CleanTemps) can recognise leftovers and, for
// instance, keep them out of status output.
const TempPrefix = ".actctl-tmp-"

// DirPerm is the permission used for directories MkdirAll creates; the
// process umask still applies.
const DirPerm fs.FileMode = 0o755

// Write atomically replaces path with data.
//
// If path already exists its mode (permission, setuid, setgid and sticky
// bits) and, where the process may set them, its owner and group are kept:
// a user who made a file read-only for the group keeps it that way, and a
// file replaced by a run as root still belongs to its user. perm is used
// only when the file is new. If path is a symbolic link, the link is kept
// and its target is replaced instead: users commonly symlink CLAUDE.md to
// AGENTS.md, and renaming over the link would silently split the two
// files. On any error the temporary file is removed and path is untouched.
func Write(path string, data []byte, perm fs.FileMode) error {
	return WriteWith(path, data, Options{Perm: perm})
}

// Options say how WriteWith replaces a file.
type Options struct {
	// Perm is the permission of a new file; a replaced file keeps its own
	// mode unless ExactPerm.
	Perm fs.FileMode
	// ExactPerm gives the file exactly Perm, also when it replaces one
	// (its owner is still kept): for files whose mode is part of what
	// actctl writes, such as an executable skill script.
	ExactPerm bool
	// Check, when not nil, runs with the path that would be replaced once
	// the new content is durable in its temporary file, right before the
	// rename: a compare-and-swap. If it returns an error, nothing is
	// replaced and WriteWith returns that error.
	Check func(target string) error
	// NoReplace makes the write create the file only: when something is
	// at the path at the moment of the rename (after Check), nothing is
	// replaced and WriteWith returns an error that is fs.ErrExist. On
	// Linux the test and the rename are one atomic step (renameat2's
	// RENAME_NOREPLACE); elsewhere, and on file systems without it, the
	// path is looked at right before the rename.
	NoReplace bool
	// Dirs, when not nil, takes the fsync of the directory the file is
	// renamed into: the directory is added to it instead of being synced
	// here, and the rename is durable only once Dirs.Sync has returned.
	// The file's own content is fsynced before the rename either way.
	Dirs *DirSyncs
	// NoSync skips both fsyncs: the replacement is still atomic (a reader
	// sees the old file or the new one), but after a crash the file may
	// be the old one, missing, or new in name with content the system
	// never wrote out (empty, zero-filled or partial). Only for caches
	// that carry their own digest and are checked on every read, so such
	// a file is refused and rebuilt (package inputs: .actant/inputs.rec
	// and config.cache); never for a record that must survive a crash.
	NoSync bool
}

// keptMode are the mode bits Write carries over from the replaced file.
const keptMode = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// WriteWith is Write with options.
func WriteWith(path string, data []byte, o Options) (err error) {
	target, old, err := resolve(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	mode := o.Perm.Perm()
	if old != nil {
		if !old.Mode().IsRegular() {
			return fmt.Errorf("write %s: not a regular file", path)
		}
		if !o.ExactPerm {
			mode = old.Mode() & keptMode
		}
	}
	dir := filepath.Dir(target)
	f, err := createTemp(dir)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				_ = f.Close()
			}
			_ = os.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// The owner first: a chown may clear setuid and setgid bits.
	if old != nil {
		if err = keepOwner(f, old); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
	}
	// The temp file is 0600; set the final bits explicitly (Chmod is not
	// subject to the umask, so mode is exactly what the file gets).
	if err = f.Chmod(mode); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !o.NoSync {
		if err = syncFile(f, target); err != nil {
			return fmt.Errorf("write %s: fsync: %w", path, err)
		}
	}
	closed = true
	if err = f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if o.Check != nil {
		if err = o.Check(target); err != nil {
			return err
		}
	}
	if err = swap(tmp, target, o.NoReplace); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if o.NoSync {
		return nil
	}
	if err = o.Dirs.syncOrAdd(dir); err != nil {
		// The rename happened; the temp name no longer exists, so there is
		// nothing to clean up, but durability is not guaranteed: report it.
		return fmt.Errorf("write %s: fsync dir: %w", path, err)
	}
	return nil
}

// swap renames tmp to target; with noReplace only when nothing is at
// target (Options.NoReplace), else it fails with fs.ErrExist.
func swap(tmp, target string, noReplace bool) error {
	if !noReplace {
		return rename(tmp, target)
	}
	if ok, err := renameNoReplace(tmp, target); ok {
		return err
	}
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		if err == nil {
			err = &os.PathError{Op: "create", Path: target, Err: fs.ErrExist}
		}
		return err
	}
	return rename(tmp, target)
}

// resolve follows a symbolic link at path (if any) to the file it names, so
// that Write replaces the link's target rather than the link. It returns
// the target's file info too, nil when nothing is there.
func resolve(path string) (string, fs.FileInfo, error) {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return path, nil, nil
	case err != nil:
		return "", nil, err
	case fi.Mode()&fs.ModeSymlink == 0:
		return path, fi, nil
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		// A dangling link: write where it points, relative to its directory.
		link, lerr := os.Readlink(path)
		if lerr != nil {
			return "", nil, lerr
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		target = link
	}
	fi, err = os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return target, nil, nil
	case err != nil:
		return "", nil, err
	}
	return target, fi, nil
}

// MkdirAll creates dir and any missing parents and returns the directories
// it actually created, outermost first, so the caller can record them and
// remove them again on prune (see RemoveEmptyDirs). Each new directory's
// parent is fsynced so the creation is durable. If it fails part way, the
// directories it created are removed again and none are returned.
func MkdirAll(dir string) (created []string, err error) {
	return mkdirAll(dir, nil)
}

// MkdirAll is the package's MkdirAll, leaving the fsync of each new
// directory's parent to s.
func (s *DirSyncs) MkdirAll(dir string) (created []string, err error) {
	return mkdirAll(dir, s)
}

// mkdirAll is MkdirAll with the parents' fsyncs left to s (done at once
// when s is nil).
func mkdirAll(dir string, s *DirSyncs) (created []string, err error) {
	dir = filepath.Clean(dir)
	var missing []string
	for d := dir; ; {
		fi, statErr := os.Stat(d)
		if statErr == nil {
			if !fi.IsDir() {
				return nil, fmt.Errorf("mkdir %s: %s is not a directory", dir, d)
			}
			break
		}
		if !errors.Is(statErr, fs.ErrNotExist) {
			return nil, fmt.Errorf("mkdir %s: %w", dir, statErr)
		}
		missing = append(missing, d)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	defer func() {
		if err != nil {
			for i := len(created) - 1; i >= 0; i-- {
				_ = os.Remove(created[i])
			}
			created = nil
		}
	}()
	for i := len(missing) - 1; i >= 0; i-- {
		d := missing[i]
		if err = os.Mkdir(d, DirPerm); err != nil {
			if errors.Is(err, fs.ErrExist) {
				// Created concurrently by someone else: not ours to remove.
				err = nil
				continue
			}
			return nil, fmt.Errorf("mkdir %s: %w", dir, err)
		}
		created = append(created, d)
		if err = s.syncOrAdd(filepath.Dir(d)); err != nil {
			return nil, fmt.Errorf("mkdir %s: fsync: %w", dir, err)
		}
	}
	return created, nil
}

// Remove deletes path and fsyncs its directory so the deletion is durable.
// A path that does not exist is not an error: prune must be re-runnable
// after a crash that happened between two removals.
func Remove(path string) error {
	return remove(path, nil)
}

// Remove is the package's Remove, leaving the fsync of path's directory to
// s.
func (s *DirSyncs) Remove(path string) error {
	return remove(path, s)
}

func remove(path string, s *DirSyncs) error {
	if err := os.Remove(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("remove %s: %w", path, err)
	}
	if err := s.syncOrAdd(filepath.Dir(path)); err != nil {
		return fmt.Errorf("remove %s: fsync dir: %w", path, err)
	}
	return nil
}

// RemoveEmptyDirs removes the given directories (as returned by MkdirAll)
// deepest first, skipping any that are missing or no longer empty: a
// directory actctl created may since have received the user's files, which
// must never be lost.
func RemoveEmptyDirs(dirs []string) error {
	return removeEmptyDirs(dirs, nil)
}

// RemoveEmptyDirs is the package's RemoveEmptyDirs, leaving the fsync of
// each removed directory's parent to s.
func (s *DirSyncs) RemoveEmptyDirs(dirs []string) error {
	return removeEmptyDirs(dirs, s)
}

func removeEmptyDirs(dirs []string, s *DirSyncs) error {
	sorted := deepestFirst(dirs)
	for _, d := range sorted {
		entries, err := os.ReadDir(d)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return fmt.Errorf("remove dir %s: %w", d, err)
		}
		if len(entries) > 0 {
			continue
		}
		if err := remove(d, s); err != nil {
			return err
		}
	}
	return nil
}

// deepestFirst returns a sorted copy of dirs, longest first: a longer
// cleaned path is never an ancestor of a shorter one.
func deepestFirst(dirs []string) []string {
	sorted := append([]string(nil), dirs...)
	sort.SliceStable(sorted, func(i, j int) bool { return len(sorted[i]) > len(sorted[j]) })
	return sorted
}

// CleanTemps removes the TempPrefix files a killed process left in dir (not
// recursively) and returns the names it removed. Call it, under the
// workspace lock, for each directory actctl writes to; a missing directory
// is not an error.
func CleanTemps(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("clean temps in %s: %w", dir, err)
	}
	var removed []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), TempPrefix) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("clean temps in %s: %w", dir, err)
		}
		removed = append(removed, e.Name())
	}
	if len(removed) > 0 {
		if err := syncDir(dir); err != nil {
			return removed, fmt.Errorf("clean temps in %s: fsync: %w", dir, err)
		}
	}
	return removed, nil
}

// syncFile fsyncs f, whose content will be renamed to target.
func syncFile(f *os.File, target string) error {
	if o := observer.Load(); o != nil {
		(*o)(target, false)
	}
	return f.Sync()
}

// syncDir fsyncs a directory so that entries created, renamed or removed in
// it survive a crash.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	if o := observer.Load(); o != nil {
		(*o)(dir, true)
	}
	serr := d.Sync()
	cerr := d.Close()
	if serr != nil {
		return serr
	}
	return cerr
}
