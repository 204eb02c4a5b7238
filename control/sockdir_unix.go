//go:build unix

package control

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// userDirName is the per-user directory of fallback sockets.
func userDirName() string { return fmt.Sprintf("actctl-%d", os.Getuid()) }

// notPrivate says why fi is not a private directory of user uid ("" when
// it is one).
func notPrivate(fi fs.FileInfo, uid int) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "it is a symbolic link"
	case !fi.IsDir():
		return "it is not a directory"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return fmt.Sprintf("it belongs to uid %d, not to you (uid %d)", st.Uid, uid)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Sprintf("its mode is %#o, open to others", perm)
	}
	return ""
}
