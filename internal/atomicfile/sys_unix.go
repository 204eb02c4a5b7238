//go:build unix

package atomicfile

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// createTemp creates a new temporary file in dir, named TempPrefix and a
// random number, open for writing with permission 0600, as
// os.CreateTemp does, without registering it with Go's network poller: a
// regular file never blocks, and the registration (four fcntl calls and
// an epoll_ctl that fails) would double the system calls of a small
// write (docs/benchmarks.md, "Cold apply at 10,000 agents").
func createTemp(dir string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, TempPrefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		fd, err := syscall.Open(name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_CLOEXEC, 0o600)
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), name), nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EEXIST) && try < 10000:
			continue
		}
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
}

// rename renames tmp to target with one system call (os.Rename first
// looks at target to refuse a directory there, which rename(2) refuses
// anyway).
func rename(tmp, target string) error {
	if err := syscall.Rename(tmp, target); err != nil {
		return &os.LinkError{Op: "rename", Old: tmp, New: target, Err: err}
	}
	return nil
}
