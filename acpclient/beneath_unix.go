//go:build unix

package acpclient

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/actctl/actctl/internal/atomicfile"
)

// fileID identifies a directory: a root is opened by its path for each
// request and must still be the directory the session started with.
type fileID struct{ dev, ino uint64 }

func statID(p string) (fileID, error) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return fileID{}, err
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, nil
}

// maxHops bounds the symlinks one lookup follows (the kernel's own bound).
const maxHops = 40

var errLoop = fmt.Errorf("more than %d symlinks on the way (or a link into /proc)", maxHops)

// openRoot opens r's directory and checks it is the one the session
// started with.
func openRoot(r root) (int, error) {
	fd, err := unix.Open(r.real, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: r.real, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, &os.PathError{Op: "stat", Path: r.real, Err: err}
	}
	if (fileID{uint64(st.Dev), uint64(st.Ino)}) != r.id {
		unix.Close(fd)
		return -1, &errOutside{why: r.real + " was replaced since the session started"}
	}
	return fd, nil
}

// walker looks a path up beneath a root held open, one component at a
// time: each directory is opened with O_NOFOLLOW relative to the one
// before it (held open too), a symlink's target is read and walked in its
// place, ".." goes back to the directory held before, and nothing can
// lead above the root: an absolute link, or ".." at the root, is refused.
// A directory swapped for a link after it was opened changes nothing (the
// walker holds the directory); one swapped before is seen as the link.
type walker struct {
	fds   []int    // held directories, fds[0] the root
	names []string // their names below the root (one per fds[1:])
	hops  int
	// check, if set, may refuse a directory (its real path below the
	// root) before the walker makes it.
	check func(rel string) error
}

func newWalker(r root) (*walker, error) {
	fd, err := openRoot(r)
	if err != nil {
		return nil, err
	}
	return &walker{fds: []int{fd}}, nil
}

func (w *walker) close() {
	for _, fd := range w.fds {
		unix.Close(fd)
	}
	w.fds = nil
}

func (w *walker) top() int { return w.fds[len(w.fds)-1] }

// rel is the real path below the root of name in the top directory.
func (w *walker) rel(name string) string {
	return filepath.Join(append(append([]string{}, w.names...), name)...)
}

// dirs walks every component of q but the last, creating missing
// directories when mkdir, and returns the last one's name in w.top() ("."
// when q ends in the directory itself).
func (w *walker) dirs(q []string, mkdir bool) (string, error) {
	for len(q) > 0 {
		c := q[0]
		q = q[1:]
		switch {
		case c == "" || c == ".":
			continue
		case c == "..":
			if err := w.up(); err != nil {
				return "", err
			}
			continue
		case len(q) == 0:
			return c, nil
		}
		target, err := w.down(c, mkdir)
		if err != nil {
			return "", err
		}
		if target != "" {
			sub, err := w.link(target)
			if err != nil {
				return "", err
			}
			q = append(sub, q...)
		}
	}
	return ".", nil
}

// up leaves the top directory for the one held before it.
func (w *walker) up() error {
	if len(w.fds) == 1 {
		return &errOutside{why: `".." leads above it`}
	}
	unix.Close(w.top())
	w.fds = w.fds[:len(w.fds)-1]
	w.names = w.names[:len(w.names)-1]
	return nil
}

// down enters directory c of the top one (made first when missing and
// mkdir); if c is a symlink it returns its target instead.
func (w *walker) down(c string, mkdir bool) (string, error) {
	// An entry swapped between the open and the readlink looks like
	// neither a directory nor a link: it is looked at again.
	for try := 1; ; try++ {
		fd, target, err := w.openDir(c, mkdir)
		switch {
		case target != "":
			return target, nil
		case err == nil:
			w.fds = append(w.fds, fd)
			w.names = append(w.names, c)
			return "", nil
		case try == 3 || !errors.Is(err, unix.ENOTDIR) && !errors.Is(err, unix.ELOOP):
			return "", err
		}
	}
}

// openDir opens directory c of the top one, or returns its target if it
// is a symlink.
func (w *walker) openDir(c string, mkdir bool) (int, string, error) {
	const flags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fd, err := unix.Openat(w.top(), c, flags, 0)
	if err == unix.ENOENT && mkdir {
		if w.check != nil {
			if err := w.check(w.rel(c)); err != nil {
				return -1, "", err
			}
		}
		if err = unix.Mkdirat(w.top(), c, uint32(atomicfile.DirPerm)); err == nil || err == unix.EEXIST {
			fd, err = unix.Openat(w.top(), c, flags, 0)
		}
	}
	if err == nil {
		return fd, "", nil
	}
	if target, lerr := readlinkat(w.top(), c); lerr == nil {
		return -1, target, nil
	}
	return -1, "", &os.PathError{Op: "open", Path: w.rel(c), Err: err}
}

// link returns the components of a symlink's target to walk in its
// place, relative to the directory holding the link.
func (w *walker) link(target string) ([]string, error) {
	w.hops++
	if w.hops > maxHops {
		return nil, errLoop
	}
	if filepath.IsAbs(target) {
		return nil, &errOutside{why: fmt.Sprintf("a symlink on the way points to the absolute path %s (links are followed only by relative targets that stay inside)", target)}
	}
	return strings.Split(target, "/"), nil
}

func readlinkat(dir int, name string) (string, error) {
	for n := 256; ; n *= 2 {
		b := make([]byte, n)
		m, err := unix.Readlinkat(dir, name, b)
		if err != nil {
			return "", err
		}
		if m < n {
			return string(b[:m]), nil
		}
	}
}

// split is rel's components.
func split(rel string) []string { return strings.Split(filepath.ToSlash(rel), "/") }

// openBeneath opens the regular file rel below root r for reading,
// never leaving r (see walker); Linux asks the kernel (openat2) first.
func openBeneath(r root, rel string) (*os.File, error) {
	if f, ok, err := openat2Beneath(r, rel); ok {
		return f, err
	}
	w, err := newWalker(r)
	if err != nil {
		return nil, err
	}
	defer w.close()
	name, err := w.dirs(split(rel), false)
	if err != nil {
		return nil, err
	}
	for {
		fd, err := unix.Openat(w.top(), name, readFlags|unix.O_NOFOLLOW, 0)
		if err == nil {
			return regularFile(fd, w.rel(name))
		}
		target, lerr := readlinkat(w.top(), name)
		if lerr != nil {
			return nil, &os.PathError{Op: "open", Path: w.rel(name), Err: err}
		}
		sub, err := w.link(target)
		if err != nil {
			return nil, err
		}
		if name, err = w.dirs(sub, false); err != nil {
			return nil, err
		}
	}
}

// readFlags open a file for reading without blocking on a FIFO or taking
// a terminal.
const readFlags = unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NONBLOCK | unix.O_NOCTTY

// regularFile is fd as a file, refused (and closed) unless it is a
// regular one: a FIFO or a device is no text file.
func regularFile(fd int, rel string) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "stat", Path: rel, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	return os.NewFile(uintptr(fd), rel), nil
}

// writeBeneath replaces (or creates) the file rel below root r with data,
// making missing directories, all beneath r: a symlink at rel is kept and
// its target written, as long as it stays in r. check is called with the
// real path below r of the file that would be written and of each
// directory before it is made. The temporary file is made,
// renamed and on failure removed in the held directory, never by path.
func writeBeneath(r root, rel string, data []byte, check func(rel string) error) error {
	w, err := newWalker(r)
	if err != nil {
		return err
	}
	defer w.close()
	w.check = check
	name, err := w.dirs(split(rel), true)
	if err != nil {
		return err
	}
	for {
		target, lerr := readlinkat(w.top(), name)
		if lerr != nil {
			break
		}
		sub, err := w.link(target)
		if err != nil {
			return err
		}
		if name, err = w.dirs(sub, true); err != nil {
			return err
		}
	}
	if name == "." {
		return fmt.Errorf("%s is a directory", rel)
	}
	if err := check(w.rel(name)); err != nil {
		return err
	}
	return w.replace(name, data)
}

// replace writes data to a temporary file in the top directory, fsyncs
// it and renames it over name, keeping the mode of the file replaced.
func (w *walker) replace(name string, data []byte) (err error) {
	dir := w.top()
	mode := uint32(0o644)
	var st unix.Stat_t
	switch err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR:
		return fmt.Errorf("%s is a directory", w.rel(name))
	case err == nil && st.Mode&unix.S_IFMT != unix.S_IFREG:
		return fmt.Errorf("%s is not a regular file", w.rel(name))
	case err == nil:
		mode = uint32(st.Mode) & 0o7777
	case err != unix.ENOENT:
		return &os.PathError{Op: "stat", Path: w.rel(name), Err: err}
	}
	tmp, fd, err := createTemp(dir)
	if err != nil {
		return &os.PathError{Op: "create", Path: w.rel(tmp), Err: err}
	}
	f := os.NewFile(uintptr(fd), w.rel(tmp))
	defer func() {
		if f != nil {
			f.Close()
		}
		if err != nil {
			unix.Unlinkat(dir, tmp, 0)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = unix.Fchmod(fd, mode); err != nil {
		return &os.PathError{Op: "chmod", Path: w.rel(tmp), Err: err}
	}
	if err = f.Sync(); err != nil {
		return err
	}
	err, f = f.Close(), nil
	if err != nil {
		return err
	}
	if err = unix.Renameat(dir, tmp, dir, name); err != nil {
		return &os.PathError{Op: "rename", Path: w.rel(name), Err: err}
	}
	if err := unix.Fsync(dir); err != nil {
		return &os.PathError{Op: "fsync", Path: w.rel("."), Err: err}
	}
	return nil
}

// createTemp makes a new file named with atomicfile.TempPrefix in dir
// (so a run killed before its rename leaves a leftover apply recognises).
func createTemp(dir int) (string, int, error) {
	for {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return "", -1, err
		}
		name := atomicfile.TempPrefix + hex.EncodeToString(b[:])
		fd, err := unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if !errors.Is(err, unix.EEXIST) {
			return name, fd, err
		}
	}
}
