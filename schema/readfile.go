package schema

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"cuelang.org/go/cue/load"

	"github.com/actctl/actctl/model"
)

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
	if _, err := checkCUEDir(root, overlay); err != nil {
		return nil, err
	}
	mod := filepath.Join(root, "cue.mod")
	if fi, err := os.Stat(mod); err != nil || !fi.IsDir() {
		return overlay, nil
	}
	return overlay, checkCUETree(mod, overlay, nil)
}

// maxLinkDepth bounds the links to directories followed along one path
// under cue.mod/ (see checkCUETree).
const maxLinkDepth = 8

// checkCUETree checks dir and every directory under it, through links
// to directories as CUE's loader goes (each directory once per path into
// it: in holds those entered through links, a link back to one of them
// is not followed again).
func checkCUETree(dir string, overlay map[string]load.Source, in []fs.FileInfo) error {
	subdirs, err := checkCUEDir(dir, overlay)
	if err != nil {
		return err
	}
	for _, sub := range subdirs {
		if sub.via != nil {
			if len(in) >= maxLinkDepth || slices.ContainsFunc(in, func(a fs.FileInfo) bool { return os.SameFile(a, sub.via) }) {
				continue
			}
			if err := checkCUETree(sub.path, overlay, append(in[:len(in):len(in)], sub.via)); err != nil {
				return err
			}
			continue
		}
		if err := checkCUETree(sub.path, overlay, in); err != nil {
			return err
		}
	}
	return nil
}

// subdir is a directory found by checkCUEDir; via is the target's
// FileInfo when it is reached through a link.
type subdir struct {
	path string
	via  fs.FileInfo
}

// checkCUEDir checks the entries of dir for checkCUEFiles, adding an
// empty overlay for each special file that is no *.cue file, and returns
// its directories (links to directories included).
func checkCUEDir(dir string, overlay map[string]load.Source) ([]subdir, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read workspace %s: %w", dir, unwrapPathError(err))
	}
	var subdirs []subdir
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		isCUE := strings.HasSuffix(e.Name(), ".cue")
		switch t := e.Type(); {
		case t.IsDir():
			subdirs = append(subdirs, subdir{path: p})
		case t.IsRegular() && !isCUE:
		case isCUE:
			if err := checkCUEFile(p); err != nil {
				return nil, err
			}
		case t&fs.ModeSymlink != 0:
			fi, err := os.Stat(p)
			switch {
			case err == nil && fi.IsDir():
				subdirs = append(subdirs, subdir{path: p, via: fi})
			case err != nil || !fi.Mode().IsRegular():
				overlay[p] = load.FromBytes(nil) // dangling, or to a special file
			}
		default:
			overlay[p] = load.FromBytes(nil)
		}
	}
	return subdirs, nil
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
		return fmt.Errorf("read %s: %w; actctl loads only regular *.cue files: remove it or rename it", p, model.NotRegular(fi.Mode()))
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("read %s: %w", p, unwrapPathError(err))
	}
	return f.Close()
}
