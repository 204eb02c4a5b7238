//go:build unix

package control

import (
	"fmt"
	"io/fs"
	"syscall"
)

// noFollow makes an open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// notOurs says why fi is not a file of user uid without the permission
// bits open ("" when it is one); a symbolic link never is.
func notOurs(fi fs.FileInfo, uid int, open fs.FileMode) string {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "it is a symbolic link"
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != uid {
		return fmt.Sprintf("it belongs to uid %d, not to you (uid %d)", st.Uid, uid)
	}
	if perm := fi.Mode().Perm(); perm&open != 0 {
		return fmt.Sprintf("its mode is %#o, writable or open to others", perm)
	}
	return ""
}
