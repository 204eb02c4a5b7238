package reconcile

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/actctl/actctl/internal/par"
	"github.com/actctl/actctl/materialize"
)

// FileInfo is what Snapshot found at one path.
type FileInfo struct {
	// Real is the path writes go to: the path itself, or the target of a
	// symbolic link that stays inside the agent's workspace (CLAUDE.md ->
	// AGENTS.md). Entries of different paths with one Real path are
	// planned together, as one file.
	Real   string
	Exists bool
	IsDir  bool
	Perm   fs.FileMode
	Data   []byte
	// sha is the digest of Data, computed by the snapshot's readers (in
	// parallel) or on first use (hasSHA).
	sha    digest
	hasSHA bool
}

// digest returns the sha256 of fi.Data.
func (fi *FileInfo) digest() *digest {
	if !fi.hasSHA {
		fi.sha, fi.hasSHA = sha256.Sum256(fi.Data), true
	}
	return &fi.sha
}

// Snapshot is every path the targets and the state mention, read once.
// It is the only input of Plan that comes from the disk.
type Snapshot struct {
	Root string
	// Files is keyed by absolute path (agent dir joined with entry path).
	Files map[string]*FileInfo
	// Dirs records, for every directory between an agent dir and its
	// entries, whether it exists (and is a directory). The parents of files
	// read by the fast path (which proved them to be real directories) are
	// added on first use, by dirExists: a no-op apply never asks.
	Dirs map[string]bool
	// Backups holds the bytes of the backups the state records (keyed by
	// absolute path), nil when the backup is missing.
	Backups map[string][]byte

	// fastRefs are the paths read by the fast path, whose parents are not
	// yet in Dirs (see dirExists).
	fastRefs []pathRef
}

// dirExists reports whether the directory d (between an agent dir and an
// entry) exists.
func (s *Snapshot) dirExists(d string) bool {
	if s.fastRefs != nil {
		for _, r := range s.fastRefs {
			// abs is dir + "/" + rel (a fast read needs a clean rel): the
			// parents are its prefixes up to each slash of rel.
			for k := strings.LastIndexByte(r.abs, '/'); k > len(r.dir); k = strings.LastIndexByte(r.abs[:k], '/') {
				p := r.abs[:k]
				if s.Dirs[p] {
					break
				}
				s.Dirs[p] = true
			}
		}
		s.fastRefs = nil
	}
	return s.Dirs[d]
}

// pathRef is one (agent dir, relative path) pair to look at.
type pathRef struct {
	dir, rel, abs string
	dirMode       bool
	// clean: abs is dir + "/" + rel (see joiner); only then is the fast
	// read tried.
	clean bool
}

// TakeSnapshot reads every file the targets and states mention. It fails,
// before anything is written, when a path could leave its agent's
// workspace: an entry path that is not clean and relative, or a symbolic
// link inside the workspace (a parent directory or the file itself) that
// points outside it.
func TakeSnapshot(root string, targets []*materialize.Target, states ...*State) (*Snapshot, error) {
	n := 0
	for _, t := range targets {
		n += len(t.Entries)
	}
	s := &Snapshot{Root: root, Files: make(map[string]*FileInfo, n), Dirs: map[string]bool{}, Backups: map[string][]byte{}}
	c := &collector{s: s, refs: make([]pathRef, 0, n)}
	if err := c.collect(root, targets, states); err != nil {
		return nil, err
	}
	if err := s.readAll(c.refs); err != nil {
		return nil, err
	}
	for _, b := range c.backups {
		data, err := os.ReadFile(b)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("read backup %s: %w", b, err)
		}
		s.Backups[b] = data
	}
	return s, nil
}

// collector gathers the paths a snapshot reads, each once. Files doubles
// as the set of paths seen; each gets its FileInfo from a slab, filled in
// place by the readers.
type collector struct {
	s       *Snapshot
	refs    []pathRef
	backups []string
	slab    []FileInfo
	buf     []byte
}

// collect adds every entry path of targets and states, and the backups
// the states name.
func (c *collector) collect(root string, targets []*materialize.Target, states []*State) error {
	for _, t := range targets {
		if !filepath.IsAbs(t.Dir) {
			return fmt.Errorf("agent %s: workspace dir %q is not absolute", t.Agent, t.Dir)
		}
		j := newJoiner(t.Dir)
		for _, e := range t.Entries {
			if err := c.add(j, e.Path, e.Mode); err != nil {
				return fmt.Errorf("agent %s: %w", t.Agent, err)
			}
		}
	}
	for _, st := range states {
		if st == nil {
			continue
		}
		for name, a := range st.Agents {
			if !filepath.IsAbs(a.Dir) {
				return fmt.Errorf("state: agent %s: dir %q is not absolute", name, a.Dir)
			}
			j := newJoiner(a.Dir)
			for _, e := range a.Entries {
				if err := c.add(j, e.Path, e.Mode); err != nil {
					return fmt.Errorf("state: agent %s: %w", name, err)
				}
				if e.Backup != "" {
					if err := checkRelPath(e.Backup); err != nil {
						return fmt.Errorf("state: agent %s: backup %q: %w", name, e.Backup, err)
					}
					c.backups = append(c.backups, filepath.Join(root, filepath.FromSlash(e.Backup)))
				}
			}
		}
	}
	return nil
}

func (c *collector) slot() *FileInfo {
	if len(c.slab) == 0 {
		c.slab = make([]FileInfo, 1024)
	}
	fi := &c.slab[0]
	c.slab = c.slab[1:]
	return fi
}

// add adds the path rel below j's directory, unless it was seen.
func (c *collector) add(j joiner, rel string, m materialize.Mode) error {
	if err := checkRelPath(rel); err != nil {
		return fmt.Errorf("refusing path %q in %s: %w", rel, j.dir, err)
	}
	var abs string
	if j.fast {
		// Look the path up without allocating it: most state paths
		// repeat a target's.
		c.buf = append(append(append(c.buf[:0], j.dir...), '/'), rel...)
		if _, ok := c.s.Files[string(c.buf)]; ok {
			return nil
		}
		abs = string(c.buf)
	} else {
		abs = j.join(rel)
		if _, ok := c.s.Files[abs]; ok {
			return nil
		}
	}
	c.s.Files[abs] = c.slot()
	c.refs = append(c.refs, pathRef{dir: j.dir, rel: rel, abs: abs, dirMode: m == materialize.ModeDir, clean: j.fast})
	return nil
}

// readAll reads every ref into its FileInfo, in parallel, with one
// descriptor per agent directory for the fast path (fastRead), and
// records the directories seen.
func (s *Snapshot) readAll(refs []pathRef) error {
	agentDirs, refDir := agentDirsOf(refs)
	dirFDs := make([]int, len(agentDirs))
	par.For(len(agentDirs), par.IO(), func(i int) { dirFDs[i] = openDirFD(agentDirs[i]) })
	defer func() {
		for _, fd := range dirFDs {
			if fd >= 0 {
				closeFD(fd)
			}
		}
	}()

	w := &walker{dirs: map[string]dirState{}, real: map[string]string{}}
	errs := make([]error, len(refs))
	fast := make([]bool, len(refs))
	slots := make([]*FileInfo, len(refs))
	for i, r := range refs {
		slots[i] = s.Files[r.abs]
	}
	par.For(len(refs), par.IO(), func(i int) {
		r, fi := refs[i], slots[i]
		if r.clean && fastRead(fi, dirFDs[refDir[i]], r.rel, r.dirMode) {
			fi.Real = r.abs
			fast[i] = true
		} else {
			got, err := w.read(r)
			if err != nil {
				errs[i] = err
				return
			}
			*fi = *got
		}
		if fi.Exists && !fi.IsDir {
			fi.digest() // here, in parallel, for the planner
		}
	})
	for i := range refs {
		if errs[i] != nil {
			return errs[i]
		}
	}
	for d, st := range w.dirs {
		s.Dirs[d] = st.exists
	}
	// A fast read found every directory between the agent dir and the
	// file to be a real directory: they are added to Dirs when asked for.
	for i, r := range refs {
		if fast[i] {
			s.fastRefs = append(s.fastRefs, r)
		}
	}
	// The agent dirs themselves (a workDir may be any directory, symlinked
	// or not: the user's choice; only whether it exists matters). One the
	// fast path opened is a directory.
	for i, d := range agentDirs {
		if _, ok := s.Dirs[d]; !ok {
			if dirFDs[i] >= 0 {
				s.Dirs[d] = true
				continue
			}
			fi, err := os.Stat(d)
			s.Dirs[d] = err == nil && fi.IsDir()
		}
	}
	return nil
}

// agentDirsOf returns the distinct agent directories of refs, in order of
// first appearance, and for each ref the index of its directory.
func agentDirsOf(refs []pathRef) (agentDirs []string, refDir []int) {
	dirIndex := map[string]int{}
	refDir = make([]int, len(refs))
	for i, r := range refs {
		j, ok := dirIndex[r.dir]
		if !ok {
			j = len(agentDirs)
			dirIndex[r.dir] = j
			agentDirs = append(agentDirs, r.dir)
		}
		refDir[i] = j
	}
	return agentDirs, refDir
}

// checkRelPath is the reconciler's own guard on entry paths (the renderer
// checks them too, but the state file is input as well): relative, clean,
// slash-separated, no "..".
func checkRelPath(rel string) error {
	if rel == "" || strings.IndexByte(rel, '\\') >= 0 || strings.IndexByte(rel, 0) >= 0 {
		return errors.New("not a clean relative path")
	}
	if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
		return errors.New("path is absolute")
	}
	if !isCleanRel(rel) {
		return errors.New("path has an empty, '.' or '..' segment")
	}
	return nil
}

type dirState struct {
	exists bool
	err    error
}

// walker checks parent directories once each, shared by the parallel
// readers.
type walker struct {
	mu   sync.Mutex
	dirs map[string]dirState
	real map[string]string // agent dir -> its symlink-free form, lazily
}

func (w *walker) realDir(dir string) string {
	w.mu.Lock()
	r, ok := w.real[dir]
	w.mu.Unlock()
	if ok {
		return r
	}
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		r = dir
	}
	w.mu.Lock()
	w.real[dir] = r
	w.mu.Unlock()
	return r
}

// within reports whether p (symlink-free) is dir or below it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// checkDir looks at one directory component d inside agent dir base. A
// symbolic link is allowed only when it resolves inside the workspace;
// anything but a directory is an error, because creating a file below it
// is impossible.
func (w *walker) checkDir(base, d string) (dirState, bool) {
	w.mu.Lock()
	st, ok := w.dirs[d]
	w.mu.Unlock()
	if ok {
		return st, false
	}
	fi, err := os.Lstat(d)
	linked := false
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		st = dirState{exists: false}
	case err != nil:
		st = dirState{err: fmt.Errorf("stat %s: %w", d, err)}
	case fi.Mode()&fs.ModeSymlink != 0:
		target, rerr := filepath.EvalSymlinks(d)
		rb := w.realDir(base)
		switch {
		case rerr != nil && errors.Is(rerr, fs.ErrNotExist):
			st = dirState{err: fmt.Errorf("%s is a dangling symbolic link; refusing to write through it", d)}
		case rerr != nil:
			st = dirState{err: fmt.Errorf("resolve %s: %w", d, rerr)}
		case !within(rb, target):
			st = dirState{err: fmt.Errorf("%s is a symbolic link to %s, outside the workspace %s; refusing to write through it", d, target, base)}
		default:
			tfi, serr := os.Stat(target)
			if serr != nil || !tfi.IsDir() {
				st = dirState{err: fmt.Errorf("%s: not a directory", d)}
			} else {
				st = dirState{exists: true}
				linked = true
			}
		}
	case !fi.IsDir():
		st = dirState{err: fmt.Errorf("%s exists and is not a directory", d)}
	default:
		st = dirState{exists: true}
	}
	w.mu.Lock()
	w.dirs[d] = st
	w.mu.Unlock()
	return st, linked
}

// read checks the parents of one path and reads it.
func (w *walker) read(r pathRef) (*FileInfo, error) {
	abs := r.abs
	missing, viaLink, err := w.parents(r)
	if err != nil {
		return nil, err
	}
	fi := &FileInfo{Real: abs}
	if missing {
		return fi, nil
	}
	f, err := openNoFollow(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fi, nil
		}
		if f, err = w.openLink(r, fi, err); err != nil {
			return nil, err
		}
		viaLink = false
	}
	defer f.Close()
	if err := readOpen(f, fi, r); err != nil {
		return nil, err
	}
	if fi.IsDir {
		return fi, nil
	}
	if viaLink {
		// Reached through a directory link inside the workspace: group it
		// under its real path so two spellings are planned as one file.
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			fi.Real = real
		}
	}
	return fi, nil
}

// parents checks the directories between r's agent directory and its
// file: whether one is missing (those below it are recorded as missing
// too), and whether the path goes through a directory link.
func (w *walker) parents(r pathRef) (missing, viaLink bool, err error) {
	segs := strings.Split(r.rel, "/")
	d := r.dir
	for _, seg := range segs[:len(segs)-1] {
		d = filepath.Join(d, seg)
		if missing {
			w.mu.Lock()
			w.dirs[d] = dirState{exists: false}
			w.mu.Unlock()
			continue
		}
		st, linked := w.checkDir(r.dir, d)
		if st.err != nil {
			return false, false, st.err
		}
		if linked {
			viaLink = true
		}
		if !st.exists {
			missing = true
		}
	}
	return missing, viaLink, nil
}

// openLink opens the target of r's file when the no-follow open failed
// (with openErr) because the file is a symbolic link: fine while it stays
// inside the workspace (CLAUDE.md -> AGENTS.md); writes replace its
// target. fi.Real becomes the target.
func (w *walker) openLink(r pathRef, fi *FileInfo, openErr error) (*os.File, error) {
	abs := r.abs
	lfi, lerr := os.Lstat(abs)
	if lerr != nil || lfi.Mode()&fs.ModeSymlink == 0 {
		return nil, fmt.Errorf("read %s: %w", abs, openErr)
	}
	target, rerr := filepath.EvalSymlinks(abs)
	rb := w.realDir(r.dir)
	if rerr != nil {
		link, _ := os.Readlink(abs)
		return nil, fmt.Errorf("%s is a symbolic link to %s that cannot be resolved (%v); refusing to write through it", abs, link, rerr)
	}
	if !within(rb, target) {
		return nil, fmt.Errorf("%s is a symbolic link to %s, outside the workspace %s; refusing to write through it", abs, target, r.dir)
	}
	f, err := os.OpenFile(target, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", abs, err)
	}
	fi.Real = target
	return f, nil
}

// readOpen fills fi from the open file f at r: a directory where one is
// wanted, or the bytes of a regular file where a file is wanted.
func readOpen(f *os.File, fi *FileInfo, r pathRef) error {
	abs := r.abs
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("read %s: %w", abs, err)
	}
	fi.Exists = true
	fi.Perm = st.Mode().Perm()
	switch {
	case st.IsDir():
		fi.IsDir = true
		if !r.dirMode {
			return fmt.Errorf("%s is a directory; actctl wants to write a file there", abs)
		}
		return nil
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", abs)
	case r.dirMode:
		return fmt.Errorf("%s is a file; actctl wants a directory there", abs)
	}
	data := make([]byte, st.Size())
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("read %s: %w", abs, err)
	}
	data = data[:n]
	// A file that grew since the stat: read the rest.
	if rest, err := io.ReadAll(f); err == nil && len(rest) > 0 {
		data = append(data, rest...)
	}
	fi.Data = data
	return nil
}
