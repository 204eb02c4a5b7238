package reconcile

import (
	"errors"
	"io/fs"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// The snapshot's fast path on Linux: openat2(2) with RESOLVE_NO_SYMLINKS,
// relative to the agent's directory, opens an entry only when no
// component of its relative path is a symbolic link. That is exactly the
// case the per-directory checks of walker.read accept without looking
// further (every parent a real directory, the file itself not a link), so
// such a file is read with four system calls (open, fstat, read, close)
// and no parent lstat. Anything else — a missing file or parent, a link,
// a directory where a file is wanted, a kernel without openat2 — goes the
// slow way, which decides and reports it.

var openat2Unsupported atomic.Bool

func openDirFD(dir string) int {
	if openat2Unsupported.Load() {
		return -1
	}
	for {
		fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1
		}
		return fd
	}
}

func closeFD(fd int) { _ = syscall.Close(fd) }

func openat2(dirfd int, rel string, flags int) (int, error) {
	how := unix.OpenHow{Flags: uint64(flags), Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(dirfd, rel, &how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		if err != nil {
			return -1, err
		}
		return fd, nil
	}
}

// fastRead reads rel below the directory dirfd into fi when no component
// of rel is a symbolic link and it is what is wanted (a regular file, or a
// directory for dirMode). It returns false when the slow path must decide.
func fastRead(fi *FileInfo, dirfd int, rel string, dirMode bool) bool {
	if dirfd < 0 || openat2Unsupported.Load() {
		return false
	}
	fd, err := openat2(dirfd, rel, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW|syscall.O_CLOEXEC)
	if err != nil {
		if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EPERM) {
			openat2Unsupported.Store(true) // an old kernel or a seccomp filter
		}
		return false
	}
	defer closeFD(fd)
	var st syscall.Stat_t
	for {
		err = syscall.Fstat(fd, &st)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return false
	}
	perm := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		if !dirMode {
			return false
		}
		fi.Exists, fi.IsDir, fi.Perm = true, true, perm
		return true
	case syscall.S_IFREG:
		if dirMode {
			return false
		}
	default:
		return false
	}
	size := int(st.Size)
	if int64(size) != st.Size || size < 0 {
		return false
	}
	// One byte more than the size: a read that fills the buffer means the
	// file grew since the fstat, and the loop reads on to the end.
	data := make([]byte, size+1)
	n := 0
	for {
		m, err := syscall.Read(fd, data[n:])
		if err == syscall.EINTR || err == syscall.EAGAIN {
			continue
		}
		if err != nil {
			return false
		}
		if m == 0 {
			break
		}
		n += m
		if n == size && n < len(data) {
			break // exactly the size fstat gave, with room to spare: the end
		}
		if n == len(data) {
			data = append(data, make([]byte, len(data))...)
		}
	}
	fi.Exists, fi.Perm, fi.Data = true, perm, data[:n:n]
	return true
}
