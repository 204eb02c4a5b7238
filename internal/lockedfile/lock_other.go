//go:build !unix && !windows

package lockedfile

import "os"

func tryLock(f *os.File) error {
	return &os.PathError{Op: "lock", Path: f.Name(), Err: ErrNotSupported}
}

func unlock(f *os.File) error {
	return &os.PathError{Op: "unlock", Path: f.Name(), Err: ErrNotSupported}
}
