//go:build linux || darwin

package userkey

import (
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// ownedByMe reports whether fi belongs to this process's user.
func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// inOurGroup reports whether fi's group is one of this process's groups
// (primary or supplementary: a pod's fsGroup is one of them).
func inOurGroup(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	if int(st.Gid) == os.Getgid() {
		return true
	}
	gs, _ := os.Getgroups()
	return slices.Contains(gs, int(st.Gid))
}
