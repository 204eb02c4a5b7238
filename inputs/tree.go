package inputs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// maxLinkDepth bounds the links to directories followed along one path
// of a tree, where the file system cannot tell a directory met twice
// (see treeWalk.enter).
const maxLinkDepth = 8

// addTree adds the presence of dir and every file under it (skipping
// .git directories below dir, as the skill reader does), in a fixed
// order. What the loader reads through a link is tracked by the link's
// target: dir itself may be a link (a linked skill directory), a file a
// link to a file (a linked SKILL.md: its target's stat data, so an edit
// of the target is a change), a directory under it a link to one (a
// package linked into cue.mod/). Each such directory is walked once per
// path into it: a link back to a directory being walked is not followed
// again.
func addTree(dir string, add func(p string, lstat, presence bool) error) error {
	if err := add(dir, false, true); err != nil {
		return err
	}
	w := treeWalk{}
	if err := w.walk(dir, dir, nil); err != nil {
		return fmt.Errorf("read %s: %w", dir, err)
	}
	slices.Sort(w.files)
	for _, f := range w.files {
		if err := add(f, false, false); err != nil {
			return err
		}
	}
	return nil
}

// treeWalk collects the files of a tree, links to directories followed.
type treeWalk struct {
	files []string
}

// walk adds the files under d (a directory of the tree rooted at root,
// entered through the links to directories whose targets are in, in
// order).
func (w *treeWalk) walk(root, d string, in []fs.FileInfo) error {
	entries, err := os.ReadDir(d)
	switch {
	case err != nil && d == root && errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil && d == root:
		if fi, serr := os.Stat(root); serr == nil && !fi.IsDir() {
			w.files = append(w.files, root) // no tree: the file itself
			return nil
		}
		return err
	case err != nil:
		return err
	}
	for _, e := range entries {
		p := filepath.Join(d, e.Name())
		switch {
		case e.IsDir() && e.Name() == ".git":
		case e.IsDir():
			if err := w.walk(root, p, in); err != nil {
				return err
			}
		case e.Type()&fs.ModeSymlink != 0:
			if err := w.link(root, p, in); err != nil {
				return err
			}
		default:
			w.files = append(w.files, p)
		}
	}
	return nil
}

// link adds the link p: as a file unless it leads to a directory, which
// is walked unless it is one of those being walked through links (a
// loop), or the links followed are too many.
func (w *treeWalk) link(root, p string, in []fs.FileInfo) error {
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		w.files = append(w.files, p) // its target's stat data, or missing
		return nil
	}
	if filepath.Base(p) == ".git" || len(in) >= maxLinkDepth {
		return nil
	}
	for _, a := range in {
		if os.SameFile(a, fi) {
			return nil
		}
	}
	return w.walk(root, p, append(in[:len(in):len(in)], fi))
}
