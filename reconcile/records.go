package reconcile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/userkey"
	"github.com/go-git/go-git/v5"
)

// The state and the journal are this machine's records: trusted only if
// this user's actctl wrote them, sealed with the user's key (package
// internal/userkey), and git does not track them. Any other (a committed
// .actant/, a file another program put there, or one an actctl before
// the seal wrote) is ignored as if absent: the fresh-clone path, where
// actant.owned is a claim (docs/design.md, "What actctl trusts").

// stateKind is what a state's seal is for: the state and the journal hold
// the same record, and the journal's bytes become the state's.
const stateKind = "actctl state"

// RecordKey returns this user's key from home for the workspace records,
// made when missing with create; nil when there is none (no home, or one
// that cannot be written): then no record is trusted, and those written
// are not sealed.
func RecordKey(home string, create bool) []byte {
	k, err := userkey.Key(home, create)
	if err != nil {
		return nil
	}
	return k
}

// sealState returns data, a state's encoding, sealed with key (as it is
// when key is nil).
func sealState(key, data []byte) []byte {
	if key == nil {
		return data
	}
	return userkey.SealJSON(key, stateKind, data)
}

// readTrusted reads the state record name (StateFile or PendingFile) of
// the workspace at root: a missing file, or one that is not sealed with
// key or that git tracks, is no record (nil, with why it was ignored
// when the file exists). data are the bytes read, seal included.
func readTrusted(root, name string, key []byte, tracked func(string) bool) (st *State, data []byte, why string, err error) {
	p := metaPath(root, name)
	data, err = readRegular(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, "", nil
	}
	if err != nil {
		return nil, nil, "", layout.NotDir(filepath.Dir(p), fmt.Errorf("read state: %w", err))
	}
	body, _, ok := userkey.UnsealJSON(key, stateKind, data)
	if !ok {
		return nil, nil, fmt.Sprintf("%s is not sealed by this user's actctl (written elsewhere, or by an earlier actctl): ignored, as in a fresh clone%s", p, backupsNamed(root, body)), nil
	}
	if tracked != nil && tracked(filepath.ToSlash(filepath.Join(MetaDir, name))) {
		return nil, nil, fmt.Sprintf("%s is tracked by git, so it may come from another machine: ignored, as in a fresh clone (git rm --cached it)%s", p, backupsNamed(root, body)), nil
	}
	if st, err = parseState(body); err != nil {
		return nil, nil, "", damagedState(p, err)
	}
	return st, data, "", nil
}

// backupsNamed says which backups in .actant/backup/ the state body
// (not trusted: only read to say so) names that exist, "" when none:
// actctl no longer puts them back on prune, so the user knows where they
// are.
func backupsNamed(root string, body []byte) string {
	st, err := parseState(body)
	if err != nil {
		return ""
	}
	var names []string
	for _, a := range st.Agents {
		for _, e := range a.Entries {
			b := filepath.Clean(filepath.FromSlash(e.Backup))
			if e.Backup == "" || !strings.HasPrefix(b, filepath.Join(MetaDir, BackupDir)+string(filepath.Separator)) {
				continue
			}
			if fi, err := os.Lstat(filepath.Join(root, b)); err == nil && fi.Mode().IsRegular() {
				names = append(names, strconv.Quote(filepath.ToSlash(b))) // a name from elsewhere, escaped
			}
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return fmt.Sprintf("; the copies of your files it names stay where they are, for you to put back by hand if you remove their agents: %s", strings.Join(names, ", "))
}

// WorkspaceState reads the state the last apply recorded in the workspace
// at root (.actant/state.json, see internal/layout), trusted as
// readTrusted says with the key of the actctl home home; none is an
// empty state.
func WorkspaceState(root, home string) (*State, error) {
	st, _, _, err := readTrusted(root, StateFile, RecordKey(home, false), MetaTracked(root))
	if st == nil && err == nil {
		st = NewState()
	}
	return st, err
}

// Applied reports whether the trusted state or journal of the workspace
// at root (actctl home home) holds agent name: whether an apply has files
// of it to prune.
func Applied(root, home, name string) bool {
	key, tracked := RecordKey(home, false), MetaTracked(root)
	for _, f := range []string{StateFile, PendingFile} {
		st, _, _, err := readTrusted(root, f, key, tracked)
		if err == nil && st != nil && st.Agents[name] != nil {
			return true
		}
	}
	return false
}

// MetaTracked returns whether git tracks a path under the .actant
// directory of the workspace at root (slash-separated, relative to root,
// ".actant/adhoc.json"). The index is read once, on the first question;
// without a repository nothing is tracked.
func MetaTracked(root string) func(rel string) bool {
	var names map[string]bool
	loaded := false
	return func(rel string) bool {
		if !loaded {
			loaded = true
			names = indexNames(root)
		}
		if names == nil {
			return false
		}
		return names[rel]
	}
}

// indexNames are the paths in git's index below root, relative to it
// (nil without a repository).
func indexNames(root string) map[string]bool {
	if !dotGitUsable(root) {
		return nil
	}
	repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil
	}
	idx, err := repo.Storer.Index()
	if err != nil {
		return nil
	}
	wtRoot := wt.Filesystem.Root()
	if r, err := filepath.EvalSymlinks(wtRoot); err == nil {
		wtRoot = r
	}
	real := root
	if r, err := filepath.EvalSymlinks(root); err == nil {
		real = r
	}
	prefix, err := filepath.Rel(wtRoot, real)
	if err != nil || strings.HasPrefix(prefix, "..") {
		return nil
	}
	prefix = filepath.ToSlash(prefix) + "/"
	if prefix == "./" {
		prefix = ""
	}
	names := map[string]bool{}
	for _, e := range idx.Entries {
		if rel, ok := strings.CutPrefix(e.Name, prefix); ok && strings.HasPrefix(rel, MetaDir+"/") {
			names[rel] = true
		}
	}
	return names
}
