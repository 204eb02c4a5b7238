package model

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ReadRegular reads the regular file p, at most limit bytes (0: no limit).
// Anything else — a named pipe, a socket, a device — is refused without
// blocking: the file is opened non-blocking and checked before a single
// byte is read, so a FIFO left in a workspace cannot hang actctl.
func ReadRegular(p string, limit int64) ([]byte, error) {
	f, err := OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if limit > 0 && fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes is over the %d byte limit", p, fi.Size(), limit)
	}
	return io.ReadAll(f)
}

// OpenRegular opens p for reading if it is a regular file (after links):
// it is opened non-blocking and checked before a byte is read, so a named
// pipe or a device (a link to /dev/zero a checkout brought) is refused
// at once, never read without end.
func OpenRegular(p string) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, &fs.PathError{Op: "read", Path: p, Err: NotRegular(fi.Mode())}
	}
	return f, nil
}

// NotRegular names the kind of a non-regular file for messages.
func NotRegular(m fs.FileMode) error {
	kind := "not a regular file"
	switch {
	case m.IsDir():
		kind = "is a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "not a regular file (a named pipe)"
	case m&fs.ModeSocket != 0:
		kind = "not a regular file (a socket)"
	case m&fs.ModeDevice != 0:
		kind = "not a regular file (a device)"
	}
	return fmt.Errorf("%s", kind)
}
