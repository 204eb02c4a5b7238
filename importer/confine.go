package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/actctl/actctl/schema"
)

// MaxFileSize bounds every file import reads, as it bounds each file apply
// reads into a skill (schema.MaxSkillFileSize): a larger instruction file
// would make an actant.cue every later command loads (docs/import.md).
const MaxFileSize = schema.MaxSkillFileSize

// linkError is a path import will not read or write: a symbolic link (the
// path itself or a directory on the way) that leads out of the root or
// nowhere. apply refuses to write through such a link (package reconcile,
// snapshot.go), so import reads nothing through it either.
type linkError struct {
	rel    string // the link, relative to the root
	target string // where it leads ("" when nowhere)
}

func (e *linkError) Error() string {
	if e.target == "" {
		return fmt.Sprintf("%s is a symbolic link that leads nowhere (apply refuses to write through it)", e.rel)
	}
	return fmt.Sprintf("%s is a symbolic link to %s, outside the repository: import reads and writes nothing outside it (apply refuses to write through it)", e.rel, e.target)
}

// confined returns a *linkError when rel, or a directory on its way from
// the root, is a symbolic link that leads out of the root or nowhere;
// nil when every link on the way stays inside (CLAUDE.md -> AGENTS.md)
// or a part of rel does not exist.
func (p *Plan) confined(rel string) error {
	cur := p.root
	segs := strings.Split(filepath.FromSlash(rel), string(filepath.Separator))
	for i, seg := range segs {
		cur = filepath.Join(cur, seg)
		fi, err := os.Lstat(cur)
		if err != nil {
			return nil // missing (or unreadable: the read says why)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		link := filepath.ToSlash(filepath.Join(segs[:i+1]...))
		target, err := filepath.EvalSymlinks(cur)
		if err != nil {
			return &linkError{rel: link}
		}
		if !schema.Within(p.realRoot(), target) {
			return &linkError{rel: link, target: target}
		}
	}
	return nil
}

// realRoot is the root with symbolic links resolved (the root itself may
// lie under one, as /tmp does on macOS), resolved once.
func (p *Plan) realRoot() string {
	if p.resolvedRoot == "" {
		abs, err := filepath.Abs(p.root)
		if err != nil {
			abs = p.root
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		p.resolvedRoot = abs
	}
	return p.resolvedRoot
}

// read reads the file rel under the root: a regular file (after links
// that stay inside the root: a named pipe would block import for ever) of
// at most MaxFileSize bytes.
func (p *Plan) read(rel string) ([]byte, error) {
	if err := p.confined(rel); err != nil {
		return nil, err
	}
	path := filepath.Join(p.root, filepath.FromSlash(rel))
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	if fi.Size() > MaxFileSize {
		return nil, tooBig(rel, fi.Size())
	}
	data, err := schema.ReadRegular(path, MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", rel, err)
	}
	return data, nil
}

// tooBig says that rel, of size bytes, is over MaxFileSize.
func tooBig(rel string, size int64) error {
	return fmt.Errorf("%s is %d bytes, over the %d byte (%d MiB) limit of a file import reads", rel, size, MaxFileSize, MaxFileSize>>20)
}

// readDir lists the directory rel for agent a's items of kind; nil when
// it does not exist, or, said why (left), when it cannot be read or is a
// link out of the root.
func (p *Plan) readDir(a *agent, kind, rel string) []os.DirEntry {
	it := Item{Backend: a.b.Name, Kind: kind, Path: rel}
	if err := p.confined(rel); err != nil {
		p.leave(it, "%v", err)
		return nil
	}
	ents, err := os.ReadDir(filepath.Join(p.root, filepath.FromSlash(rel)))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		p.leave(it, "cannot read the directory (%v)", err)
		return nil
	}
	return ents
}
