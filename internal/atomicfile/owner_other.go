//go:build !unix

package atomicfile

import (
	"io/fs"
	"os"
)

// owner: files have no uid/gid on this platform.
func owner(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// keepOwner: nothing to keep on this platform.
func keepOwner(*os.File, fs.FileInfo) error { return nil }
