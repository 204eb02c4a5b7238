//go:build !unix

package reconcile

import (
	"errors"
	"io/fs"
	"os"
)

// openNoFollow opens path for reading, failing when path itself is a
// symbolic link (the caller then decides whether to follow it). There is
// no O_NOFOLLOW here: the link is looked for with Lstat before the open,
// so a link swapped in between the two is followed. Named pipes do not
// live in the file system on these systems.
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errIsSymlink}
	}
	return os.Open(path)
}

var errIsSymlink = errors.New("is a symbolic link")
