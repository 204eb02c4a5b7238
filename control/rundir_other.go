//go:build !unix

package control

import "io/fs"

// noFollow: no such open flag here; the entry is checked before.
const noFollow = 0

// notOurs says why fi cannot be used ("" when it can): ownership and mode
// bits do not describe access on these systems; a link is refused.
func notOurs(fi fs.FileInfo, uid int, open fs.FileMode) string {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "it is a symbolic link"
	}
	return ""
}

// closedBits: mode bits are not looked at here (notOurs).
func closedBits(_ fs.FileInfo, open fs.FileMode) fs.FileMode { return open }
