package watch

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/layout"
)

// Spec says which paths a configuration depends on. It is expressed in
// terms of directories because that is the only thing that can be watched
// reliably: editors save by writing a temporary file and renaming it over
// the original (or by removing and re-creating it), which replaces the
// inode, so a watch on the file itself would go silent after the first save.
//
// Paths may be relative (to the process working directory); Watch makes
// them absolute. A path that does not exist (yet) is not an error: its
// nearest existing ancestor is watched instead so that its creation is seen
// (a component directory restored by `git checkout`, a cue.mod/ added later).
type Spec struct {
	// Dirs are watched recursively: every sub-directory is watched, and
	// sub-directories created later are added as they appear. .git/ and
	// .actant/ below them are skipped. Use it for local component
	// directories (a skill folder) and cue.mod/.
	Dirs []string
	// Files are single files (a local prompt or instruction file). Their
	// parent directory is watched and its events are filtered by name.
	Files []string
	// Patterns maps a directory to shell patterns (filepath.Match) of the
	// names that matter in it, non-recursively, e.g. root -> ["*.cue"]:
	// the workspace root also holds the agents' output files and actant.lock,
	// and edits to those must not cause a cycle.
	Patterns map[string][]string
}

// Workspace is the spec every watch starts from (Options.Base):
// the workspace root's *.cue files, non-recursively (the root also holds
// outputs and actant.lock), and cue.mod/ recursively, present or not.
func Workspace(root string) Spec {
	return Spec{
		Dirs:     []string{filepath.Join(root, "cue.mod")},
		Patterns: map[string][]string{root: {"*.cue"}},
	}
}

// IsZero reports whether s names nothing.
func (s Spec) IsZero() bool {
	return len(s.Dirs) == 0 && len(s.Files) == 0 && len(s.Patterns) == 0
}

// normalize returns s with absolute, clean, sorted, de-duplicated paths so
// that two specs can be compared cheaply (watches are only re-walked when the
// spec really changed).
func (s Spec) normalize() Spec {
	var n Spec
	n.Dirs = watchAbsAll(s.Dirs)
	n.Files = watchAbsAll(s.Files)
	if len(s.Patterns) > 0 {
		n.Patterns = make(map[string][]string, len(s.Patterns))
		for d, pats := range s.Patterns {
			ad := watchAbsPath(d)
			all := append(slices.Clone(n.Patterns[ad]), pats...)
			slices.Sort(all)
			n.Patterns[ad] = slices.Compact(all)
		}
	}
	return n
}

// union merges two specs (either may be zero) and normalizes the result.
func (s Spec) union(o Spec) Spec {
	u := Spec{
		Dirs:  append(slices.Clone(s.Dirs), o.Dirs...),
		Files: append(slices.Clone(s.Files), o.Files...),
	}
	if len(s.Patterns)+len(o.Patterns) > 0 {
		u.Patterns = map[string][]string{}
		for _, m := range []map[string][]string{s.Patterns, o.Patterns} {
			for d, p := range m {
				u.Patterns[d] = append(u.Patterns[d], p...)
			}
		}
	}
	return u.normalize()
}

func (s Spec) equal(o Spec) bool {
	if !slices.Equal(s.Dirs, o.Dirs) || !slices.Equal(s.Files, o.Files) || len(s.Patterns) != len(o.Patterns) {
		return false
	}
	for d, p := range s.Patterns {
		q, ok := o.Patterns[d]
		if !ok || !slices.Equal(p, q) {
			return false
		}
	}
	return true
}

func watchAbsPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

func watchAbsAll(ps []string) []string {
	if len(ps) == 0 {
		return nil
	}
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, watchAbsPath(p))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// watchIgnoredName reports whether a base name belongs to a file that never
// carries configuration: editor swap, backup and lock files (saving in vim
// creates and deletes several of them, and each would otherwise start a
// cycle) and actctl's own temporary files (atomic writes create and rename
// one per written file).
func watchIgnoredName(name string) bool {
	switch {
	case name == "4913": // vim probes whether it may create files in the directory
		return true
	case strings.HasPrefix(name, atomicfile.TempPrefix):
		return true
	case strings.HasSuffix(name, "~"): // emacs, vim, many others: backup
		return true
	case strings.HasPrefix(name, ".#"): // emacs lock symlink
		return true
	case len(name) >= 2 && strings.HasPrefix(name, "#") && strings.HasSuffix(name, "#"): // emacs auto-save
		return true
	case strings.HasSuffix(name, ".swx"): // vim's second probe
		return true
	case watchIsVimSwap(name):
		return true
	case strings.HasSuffix(name, "___jb_tmp___"), strings.HasSuffix(name, "___jb_old___"): // JetBrains safe write
		return true
	case strings.HasSuffix(name, ".kate-swp"):
		return true
	}
	return false
}

// watchIsVimSwap matches ".swp" and the names vim falls back to when that one is
// taken (".swo", ".swn", ... down to ".swa").
func watchIsVimSwap(name string) bool {
	if len(name) < 4 || !strings.HasSuffix(name[:len(name)-1], ".sw") {
		return false
	}
	c := name[len(name)-1]
	return c >= 'a' && c <= 'p'
}

// watchIgnoredDir reports whether a directory below a watched tree is never
// watched: git's object store changes on every commit, and .actant/ holds
// actctl's own state, which every apply rewrites.
func watchIgnoredDir(name string) bool {
	return name == ".git" || name == layout.Dir || watchIgnoredName(name)
}

// watchMatcher answers "does an event on this path matter for the current spec?"
// with map lookups only, because it runs for every fsnotify event and a
// git checkout can produce thousands.
type watchMatcher struct {
	trees    map[string]bool     // Spec.Dirs
	files    map[string]bool     // Spec.Files
	patterns map[string][]string // Spec.Patterns
	// structural holds every target (tree root, file, pattern directory)
	// and each of its ancestors: creating, removing or renaming any of them
	// changes what the config can see (mv skills skills.old).
	structural map[string]bool
}

func newWatchMatcher(s Spec) *watchMatcher {
	m := &watchMatcher{
		trees:      map[string]bool{},
		files:      map[string]bool{},
		patterns:   s.Patterns,
		structural: map[string]bool{},
	}
	addAnc := func(p string) {
		for {
			if m.structural[p] {
				return
			}
			m.structural[p] = true
			d := filepath.Dir(p)
			if d == p {
				return
			}
			p = d
		}
	}
	for _, d := range s.Dirs {
		m.trees[d] = true
		addAnc(d)
	}
	for _, f := range s.Files {
		m.files[f] = true
		addAnc(f)
	}
	for d := range s.Patterns {
		addAnc(d)
	}
	return m
}

// isTarget reports whether p is named by the spec itself.
func (m *watchMatcher) isTarget(p string) bool {
	if m.trees[p] || m.files[p] {
		return true
	}
	_, ok := m.patterns[p]
	return ok
}

// treeOf returns the root of the recursive tree p lies strictly inside, or
// "" when p is in none or sits below an ignored directory (.git/ etc.).
func (m *watchMatcher) treeOf(p string) string {
	child := p
	for d := filepath.Dir(p); ; d = filepath.Dir(d) {
		if watchIgnoredDir(filepath.Base(child)) && child != p {
			return ""
		}
		if m.trees[d] {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
		child = d
	}
}

// relevant reports whether an event on path p may change what the config
// loads.
func (m *watchMatcher) relevant(p string) bool {
	base := filepath.Base(p)
	if watchIgnoredName(base) {
		return false
	}
	if m.structural[p] || m.files[p] {
		return true
	}
	if pats, ok := m.patterns[filepath.Dir(p)]; ok {
		for _, pat := range pats {
			if ok, _ := filepath.Match(pat, base); ok {
				return true
			}
		}
	}
	if base == ".git" || base == layout.Dir {
		return false
	}
	return m.treeOf(p) != ""
}

// watchDesiredDirs computes every directory that must carry a watch for spec s.
func watchDesiredDirs(s Spec) map[string]bool {
	want := map[string]bool{}
	for _, d := range s.Dirs {
		fi, err := os.Stat(d)
		switch {
		case err == nil && fi.IsDir():
			watchWalkTree(d, func(dir string) { want[dir] = true })
		case err == nil: // a file where a directory was expected: watch it as a file
			if a := watchNearestDir(filepath.Dir(d)); a != "" {
				want[a] = true
			}
		default:
			if a := watchNearestDir(d); a != "" {
				want[a] = true
			}
		}
	}
	for _, f := range s.Files {
		if a := watchNearestDir(filepath.Dir(f)); a != "" {
			want[a] = true
		}
	}
	for d := range s.Patterns {
		if a := watchNearestDir(d); a != "" {
			want[a] = true
		}
	}
	return want
}

// watchWalkTree calls fn for root and every directory below it, skipping ignored
// directories. Symbolic links are not followed (a link cycle would never
// end); the root itself may be a link.
func watchWalkTree(root string, fn func(dir string)) {
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // vanished or unreadable meanwhile: nothing to watch
		}
		if !d.IsDir() {
			if p == root { // root given as a link to a directory
				fn(p)
			}
			return nil
		}
		if p != root && watchIgnoredDir(d.Name()) {
			return filepath.SkipDir
		}
		fn(p)
		return nil
	})
}

// watchNearestDir returns p if it is an existing directory, else its nearest
// existing ancestor directory, or "" if none exists.
func watchNearestDir(p string) string {
	for {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return p
		}
		d := filepath.Dir(p)
		if d == p {
			return ""
		}
		p = d
	}
}

// watchFingerprint identifies the state actctl left a path in, so that the
// events of its own writes can be told from a user's later edit of the same
// path (which changes size, mtime or mode) without any timing assumption.
type watchFingerprint struct {
	exists bool
	dir    bool
	size   int64
	mtime  int64
	mode   fs.FileMode
}

func watchFingerprintOf(p string) watchFingerprint {
	fi, err := os.Lstat(p)
	if err != nil {
		return watchFingerprint{}
	}
	f := watchFingerprint{exists: true, dir: fi.IsDir(), mode: fi.Mode()}
	if !f.dir { // a directory's size and mtime change with its entries
		f.size = fi.Size()
		f.mtime = fi.ModTime().UnixNano()
	}
	return f
}

// watchChangedSince lists the relevant files directly in dir whose modification
// time is after t. It closes the gap between a run reading a newly
// referenced directory and the watch on it being added. Directories are
// skipped: their mtime moves with every entry (including the run's own
// outputs), and new sub-directories are listed by their own call.
func watchChangedSince(dir string, t time.Time, m *watchMatcher) []string {
	return watchFiles(dir, m, func(e fs.DirEntry) bool {
		fi, err := e.Info()
		return err == nil && fi.ModTime().After(t)
	})
}

// watchFilesIn lists the relevant non-directory entries directly in dir.
func watchFilesIn(dir string, m *watchMatcher) []string { return watchFiles(dir, m, nil) }

// watchFiles lists the relevant non-directory entries directly in dir
// for which keep (when not nil) holds.
func watchFiles(dir string, m *watchMatcher, keep func(fs.DirEntry) bool) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if !e.IsDir() && m.relevant(p) && (keep == nil || keep(e)) {
			out = append(out, p)
		}
	}
	return out
}
