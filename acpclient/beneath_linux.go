package acpclient

import (
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// noOpenat2 is set once the kernel said it has no openat2 (before Linux
// 5.6, or a seccomp filter that hides it): the walker does its work then.
var noOpenat2 atomic.Bool

// openat2Beneath opens the file rel below root r for reading with one
// openat2 whose resolution the kernel keeps beneath the root
// (RESOLVE_BENEATH: no "..", absolute path or symlink out of it;
// RESOLVE_NO_MAGICLINKS: no /proc/*/fd links). ok is false when openat2
// is not available (or refused by a filter): the walker is used then.
func openat2Beneath(r root, rel string) (f *os.File, ok bool, err error) {
	if noOpenat2.Load() {
		return nil, false, nil
	}
	dir, err := openRoot(r)
	if err != nil {
		return nil, true, err
	}
	defer unix.Close(dir)
	how := unix.OpenHow{Flags: readFlags, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
	fd, err := unix.Openat2(dir, rel, &how)
	switch err {
	case nil:
		f, err = regularFile(fd, rel)
		return f, true, err
	case unix.ENOSYS:
		noOpenat2.Store(true)
		return nil, false, nil
	case unix.EPERM:
		// A seccomp filter that does not know openat2 may answer EPERM
		// (older container runtimes do): the walker gives the real answer.
		return nil, false, nil
	case unix.EXDEV:
		return nil, true, &errOutside{why: "a symlink or \"..\" on the way leads out of them (links are followed only by relative targets that stay inside)"}
	case unix.ELOOP:
		return nil, true, &os.PathError{Op: "open", Path: rel, Err: errLoop}
	}
	return nil, true, &os.PathError{Op: "open", Path: rel, Err: err}
}
