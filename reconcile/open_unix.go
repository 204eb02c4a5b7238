//go:build unix

package reconcile

import (
	"os"
	"syscall"
)

// openNoFollow opens path for reading, failing when path itself is a
// symbolic link (the caller then decides whether to follow it) and without
// blocking on a named pipe.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
