//go:build unix

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// owner returns the uid and gid of fi, when the platform has them.
func owner(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// keepOwner gives the temp file f the owner and group of old, the file it
// replaces, when they differ. Only root may give a file to another user;
// others may still set a group they belong to. What the process may not
// set stays its own, as for any file it creates: that is not an error.
func keepOwner(f *os.File, old fs.FileInfo) error {
	uid, gid, ok := owner(old)
	if !ok {
		return nil
	}
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	cuid, cgid, _ := owner(fi)
	if uid == cuid && gid == cgid {
		return nil
	}
	err = f.Chown(uid, gid)
	if errors.Is(err, fs.ErrPermission) && gid != cgid {
		err = f.Chown(-1, gid)
	}
	if errors.Is(err, fs.ErrPermission) {
		return nil
	}
	return err
}
