package inputs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// errNotRegular refuses a file that is not a regular file.
var errNotRegular = errors.New("not a regular file")

// openRegular opens p for reading only if it is a regular file: it is
// opened non-blocking and checked before a byte is read, so a named pipe
// (or a socket, a device) put where a record, a cache or an input is
// expected cannot hang actctl (as schema.ReadRegular does for the
// config's files).
func openRegular(p string) (*os.File, error) {
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
		return nil, &fs.PathError{Op: "read", Path: p, Err: errNotRegular}
	}
	return f, nil
}

// readRegular is os.ReadFile of the regular file p (see openRegular).
func readRegular(p string) ([]byte, error) {
	f, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
