//go:build !unix

package control

import (
	"io/fs"
	"os/user"
)

// userDirName is the per-user directory of fallback sockets (the temp dir
// of Windows is already per user).
func userDirName() string {
	if u, err := user.Current(); err == nil && u.Uid != "" {
		return "actctl-" + u.Uid
	}
	return "actctl"
}

// notPrivate says why fi is not a usable directory ("" when it is one).
// Ownership and mode bits do not describe access on these systems.
func notPrivate(fi fs.FileInfo, uid int) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "it is a symbolic link"
	case !fi.IsDir():
		return "it is not a directory"
	}
	return ""
}
