package schema

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ReadRegular reads the regular file p, at most limit bytes (0: no limit).
// Anything else — a named pipe, a socket, a device — is refused without
// blocking: the file is opened non-blocking and checked before a single
// byte is read, so a FIFO left in a workspace cannot hang actctl.
func ReadRegular(p string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: notRegular(fi.Mode())}
	}
	if limit > 0 && fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes is over the %d byte limit", p, fi.Size(), limit)
	}
	return io.ReadAll(f)
}

// notRegular names the kind of a non-regular file for messages.
func notRegular(m fs.FileMode) error {
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

// checkCUEFiles makes sure the CUE loader will open only regular files:
// every *.cue entry of the workspace root (and of cue.mod/, which holds
// the imported packages) must be a regular file, or a symlink to one, and
// readable. cue/load would block forever on a named pipe and report an
// unreadable file as a missing package.
func checkCUEFiles(root string) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return fmt.Errorf("read workspace %s: %w", root, unwrapPathError(err))
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".cue") || e.IsDir() {
			continue
		}
		if err := checkCUEFile(filepath.Join(root, e.Name())); err != nil {
			return err
		}
	}
	mod := filepath.Join(root, "cue.mod")
	if fi, err := os.Stat(mod); err != nil || !fi.IsDir() {
		return nil
	}
	return filepath.WalkDir(mod, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read %s: %w", p, unwrapPathError(err))
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".cue") {
			return nil
		}
		return checkCUEFile(p)
	})
}

// checkCUEFile refuses a .cue file that is not a regular file (after
// following symlinks; a symlink to a directory is left to the loader)
// or cannot be opened.
func checkCUEFile(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, unwrapPathError(err))
	}
	if fi.IsDir() {
		return nil
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("read %s: %w; actctl loads only regular *.cue files: remove it or rename it", p, notRegular(fi.Mode()))
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, unwrapPathError(err))
	}
	return f.Close()
}
