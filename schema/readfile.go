package schema

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"cuelang.org/go/cue/load"
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

// checkCUEFiles makes sure the CUE loader opens only regular files. CUE's
// loader considers every file of the directories it scans (the workspace
// root, and the package directories of cue.mod/) and reads each whose
// name it knows (*.cue, but also *.json, *.yaml, *.txt, *.proto ...)
// in full when it is not a regular file: a named pipe there blocks
// forever. So every *.cue entry must be a regular file, or a symlink to
// one, and readable (an error naming it otherwise); every other entry
// that is neither a regular file nor a directory, whatever its name, is
// hidden from the loader by an empty overlay (returned), which CUE takes
// instead of opening it. Such files are no part of the config.
func checkCUEFiles(root string) (map[string]load.Source, error) {
	overlay := map[string]load.Source{}
	if err := checkCUEDir(root, overlay); err != nil {
		return nil, err
	}
	mod := filepath.Join(root, "cue.mod")
	if fi, err := os.Stat(mod); err != nil || !fi.IsDir() {
		return overlay, nil
	}
	err := filepath.WalkDir(mod, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("read %s: %w", p, unwrapPathError(err))
		}
		if !d.IsDir() {
			return nil
		}
		return checkCUEDir(p, overlay)
	})
	return overlay, err
}

// checkCUEDir checks the entries of dir for checkCUEFiles, adding an
// empty overlay for each special file that is no *.cue file.
func checkCUEDir(dir string, overlay map[string]load.Source) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("read workspace %s: %w", dir, unwrapPathError(err))
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		isCUE := strings.HasSuffix(e.Name(), ".cue")
		switch t := e.Type(); {
		case t.IsDir():
		case t.IsRegular() && !isCUE:
		case isCUE:
			if err := checkCUEFile(p); err != nil {
				return err
			}
		case t&fs.ModeSymlink != 0 && followsToFile(p):
		default:
			overlay[p] = load.FromBytes(nil)
		}
	}
	return nil
}

// followsToFile reports whether the symlink p leads to a regular file or
// a directory (which the loader may open or scan); false for a dangling
// link or one to a special file.
func followsToFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && (fi.Mode().IsRegular() || fi.IsDir())
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
