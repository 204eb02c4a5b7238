//go:build unix

package control

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"syscall"
)

// noFollow makes an open fail on a symbolic link.
const noFollow = syscall.O_NOFOLLOW

// notOurs says why fi is not a file of user uid without the permission
// bits open ("" when it is one); a symbolic link never is. Group bits
// are accepted when the file's group is one of this process's (closedBits).
func notOurs(fi fs.FileInfo, uid int, open fs.FileMode) string {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "it is a symbolic link"
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && int(st.Uid) != uid {
		return fmt.Sprintf("it belongs to uid %d, not to you (uid %d)", st.Uid, uid)
	}
	perm := fi.Mode().Perm()
	bad := perm & closedBits(fi, open)
	if bad == 0 {
		return ""
	}
	if ok && bad&0o070 != 0 {
		return fmt.Sprintf("its mode is %#o and its group (gid %d) is not one of yours, writable or open to others", perm, st.Gid)
	}
	return fmt.Sprintf("its mode is %#o, writable or open to others", perm)
}

// closedBits is the part of the permission bits open that fi may not have:
// all of them, except the group's when fi's group is one of this
// process's (its primary group or a supplementary one, as a Kubernetes
// pod's fsGroup is): the kubelet gives every file of such a volume group
// read and write, and only the owner or root can set those bits.
func closedBits(fi fs.FileInfo, open fs.FileMode) fs.FileMode {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if ok && slices.Contains(ourGroups(), int(st.Gid)) {
		return open &^ 0o070
	}
	return open
}

// ourGroups are this process's group ids, primary first.
var ourGroups = sync.OnceValue(func() []int {
	gs, _ := os.Getgroups()
	return append([]int{os.Getgid()}, gs...)
})
