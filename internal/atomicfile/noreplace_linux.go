package atomicfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames tmp to target unless target exists, in one
// atomic step (renameat2 with RENAME_NOREPLACE); ok is false where the
// file system does not offer it (the caller then checks and renames).
func renameNoReplace(tmp, target string) (ok bool, err error) {
	err = unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, target, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EOPNOTSUPP) {
		return false, nil
	}
	return true, err
}
