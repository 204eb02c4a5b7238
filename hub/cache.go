package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/actctl/actctl/internal/atomicfile"
)

// The cache lives under $ACTANT_HOME/hub/<key>/ where key is derived from
// the source URL:
//
//	git/                       bare repository (objects fetched so far)
//	trees/<commit>[-<path>]/    extracted component tree, read-only files
//	trees/<commit>[-<path>].json  marker: written last, holds the digest
//	trees/<commit>[-<path>].index parsed components of the tree (index.go),
//	                           written after the marker once ReadTree
//	                           accepted the tree; a cache of ReadTree only
//	.lock                      serializes fetch/extract between processes
//
// A tree directory is renamed into place complete and never modified, so
// readers need no lock; its marker is what makes it count as cached. Files
// beside the trees are replaced atomically, under the lock.

// netHook, when set, is called before every network operation (remote
// listing or fetch). Tests use it to prove that a satisfied lock makes no
// network call.
var netHook func(op, url string)

// sourceKey names a source's cache directory: readable, and unique by a
// hash of the (credential-free) URL.
func sourceKey(u string) string {
	u = redactURL(u)
	sum := sha256.Sum256([]byte(u))
	s := u
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	s = regexp.MustCompile(`[^A-Za-z0-9._-]+`).ReplaceAllString(s, "-")
	s = strings.Trim(s, "-.")
	if len(s) > 48 {
		s = s[len(s)-48:]
	}
	return s + "-" + hex.EncodeToString(sum[:6])
}

// treeID names the extraction of commit's subtree path.
func treeID(commit, sub string) string {
	if sub == "" {
		return commit
	}
	sum := sha256.Sum256([]byte(sub))
	return commit + "-" + hex.EncodeToString(sum[:4])
}

// marker is the record written beside a complete tree.
type marker struct {
	Commit string `json:"commit"`
	Path   string `json:"path,omitempty"`
	Digest string `json:"digest"`
	// ExecBits: the tree was extracted with git's executable bits (0555
	// for 100755 files). A tree extracted before that has every file 0444
	// and is extracted again from the cached repository.
	ExecBits bool `json:"execBits,omitempty"`
}

// TreeRecords are the files of the cache that say what the extracted tree
// at treeDir holds, its marker and its index: a tree itself is never
// changed once extracted (apply's fast path watches these; see package
// inputs).
func TreeRecords(treeDir string) []string { return []string{treeDir + ".json", indexPath(treeDir)} }

func readMarker(treeDir string) (marker, bool) {
	b, err := os.ReadFile(treeDir + ".json")
	if err != nil {
		return marker{}, false
	}
	var m marker
	if json.Unmarshal(b, &m) != nil || m.Digest == "" {
		return marker{}, false
	}
	if fi, err := os.Stat(treeDir); err != nil || !fi.IsDir() {
		return marker{}, false
	}
	return m, true
}

// redactURL removes a password from a URL so it is never printed or
// written to the lock.
func redactURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	if _, has := p.User.Password(); has {
		p.User = url.User(p.User.Username())
	}
	return p.String()
}

// openRepo opens (or creates) the bare cache repository in dir.
func openRepo(dir string) (*git.Repository, error) {
	r, err := git.PlainOpen(dir)
	if err == nil {
		return r, nil
	}
	if !errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("open cache repository %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	r, err = git.PlainInit(dir, true)
	if err != nil {
		return nil, fmt.Errorf("create cache repository %s: %w", dir, err)
	}
	return r, nil
}

// listRemote lists the remote's references with annotated tags peeled
// (the "^{}" entries).
func listRemote(ctx context.Context, u string, auth transport.AuthMethod) ([]*plumbing.Reference, error) {
	if netHook != nil {
		netHook("list", u)
	}
	rem := git.NewRemote(nil, &config.RemoteConfig{Name: "origin", URLs: []string{u}})
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: auth, PeelingOption: git.AppendPeeled})
	if err != nil {
		return nil, err
	}
	return refs, nil
}

// resolved is a ref resolved to a commit.
type resolved struct {
	Commit plumbing.Hash
	// Name is the full reference the ref resolved to (refs/tags/v1.2.0);
	// empty for a commit ref.
	Name string
	// Spec fetches exactly that reference; empty when a full fetch is
	// needed (a bare commit).
	Spec config.RefSpec
}

// localName is where a fetched remote reference is kept in the cache repo.
func localName(remote string) string {
	if b, ok := strings.CutPrefix(remote, "refs/heads/"); ok {
		return "refs/remotes/origin/" + b
	}
	return remote
}

// resolveRemote picks the commit ref selects from a remote listing.
// Annotated tags are peeled to their commit: pinning the tag object would
// break the lock (rulesync's bug).
func resolveRemote(refs []*plumbing.Reference, ref refSpec) (resolved, error) {
	byName := map[string]*plumbing.Reference{}
	var tags []string
	for _, r := range refs {
		byName[r.Name().String()] = r
		if n := r.Name().String(); strings.HasPrefix(n, "refs/tags/") && !strings.HasSuffix(n, "^{}") {
			tags = append(tags, strings.TrimPrefix(n, "refs/tags/"))
		}
	}
	target := func(name string) (resolved, error) {
		r, ok := byName[name]
		if !ok {
			return resolved{}, notFound(name, byName)
		}
		h := r.Hash()
		if p, ok := byName[name+"^{}"]; ok {
			h = p.Hash()
		}
		return resolved{Commit: h, Name: name, Spec: config.RefSpec("+" + name + ":" + localName(name))}, nil
	}
	switch ref.Kind {
	case "branch":
		return target("refs/heads/" + ref.Value)
	case "tag":
		return target("refs/tags/" + ref.Value)
	case "semver":
		best, err := pickSemver(ref.Value, tags)
		if err != nil {
			return resolved{}, err
		}
		return target("refs/tags/" + best)
	case "commit":
		return resolved{}, nil // resolved after a fetch
	}
	// No ref: the remote's HEAD branch.
	head, ok := byName["HEAD"]
	if !ok {
		return resolved{}, errors.New("the remote has no HEAD; give ref: {branch: ...}")
	}
	if head.Type() == plumbing.SymbolicReference {
		return target(head.Target().String())
	}
	var names []string
	for n, r := range byName {
		if strings.HasPrefix(n, "refs/heads/") && r.Hash() == head.Hash() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return resolved{}, errors.New("cannot tell which branch the remote's HEAD is; give ref: {branch: ...}")
	}
	for _, n := range names {
		if n == "refs/heads/main" || n == "refs/heads/master" {
			return target(n)
		}
	}
	return target(names[0])
}

// resolveLocal resolves ref from what the cache repository already holds;
// used when the remote cannot be reached.
func resolveLocal(repo *git.Repository, ref refSpec) (resolved, error) {
	var name string
	switch ref.Kind {
	case "commit":
		h, err := repo.ResolveRevision(plumbing.Revision(ref.Value))
		if err != nil {
			return resolved{}, fmt.Errorf("commit %s is not in the cache", ref.Value)
		}
		return resolved{Commit: *h}, nil
	case "branch":
		name = "refs/heads/" + ref.Value
	case "tag":
		name = "refs/tags/" + ref.Value
	case "semver":
		iter, err := repo.Tags()
		if err != nil {
			return resolved{}, err
		}
		var tags []string
		_ = iter.ForEach(func(r *plumbing.Reference) error {
			tags = append(tags, r.Name().Short())
			return nil
		})
		best, err := pickSemver(ref.Value, tags)
		if err != nil {
			return resolved{}, fmt.Errorf("%w among the cached tags", err)
		}
		name = "refs/tags/" + best
	default:
		return resolved{}, errors.New("the default branch of an unreachable remote is unknown")
	}
	r, err := repo.Reference(plumbing.ReferenceName(localName(name)), true)
	if err != nil {
		return resolved{}, fmt.Errorf("%s is not in the cache", name)
	}
	h, err := peel(repo, r.Hash())
	if err != nil {
		return resolved{}, err
	}
	return resolved{Commit: h, Name: name}, nil
}

// peel follows annotated tag objects to the commit they name.
func peel(repo *git.Repository, h plumbing.Hash) (plumbing.Hash, error) {
	for i := 0; i < 10; i++ {
		t, err := repo.TagObject(h)
		if errors.Is(err, plumbing.ErrObjectNotFound) {
			return h, nil
		}
		if err != nil {
			return h, err
		}
		h = t.Target
	}
	return h, errors.New("tag chain too long")
}

// fetchOpts groups what a fetch needs.
type fetchOpts struct {
	Name     string // the source's, for progress lines
	URL      string
	Auth     transport.AuthMethod
	Progress io.Writer
	RepoDir  string
}

// fetch fetches specs (depth 1 when shallow) into repo; "already up to
// date" is success.
func fetch(ctx context.Context, repo *git.Repository, o fetchOpts, specs []config.RefSpec, shallow bool) error {
	if netHook != nil {
		netHook("fetch", o.URL)
	}
	if _, err := repo.Remote("origin"); err != nil {
		// The URL is always passed per fetch; the remote entry only has to
		// exist for go-git to accept the fetch.
		if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{o.URL}, Fetch: fullSpecs}); err != nil {
			return fmt.Errorf("configure cache repository: %w", err)
		}
	}
	fo := &git.FetchOptions{RemoteURL: o.URL, RefSpecs: specs, Auth: o.Auth, Tags: git.NoTags, Force: true}
	if shallow {
		fo.Depth = 1
	}
	if o.Progress != nil {
		fo.Progress = o.Progress
	}
	err := withProgress(repo, o.Progress, o.Name).FetchContext(ctx, fo)
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	return err
}

// fullSpecs fetches every branch and tag: what a bare commit needs, since
// servers commonly refuse to serve an unadvertised commit by hash.
var fullSpecs = []config.RefSpec{"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"}

func hasCommit(repo *git.Repository, h plumbing.Hash) bool {
	c, err := repo.CommitObject(h)
	if err != nil {
		return false
	}
	_, err = c.Tree()
	return err == nil
}

// extract writes the subtree sub of commit into dst (which must not exist)
// through a temporary directory renamed into place, and returns the digest
// of the tree. Every path is checked: absolute paths and ".." are refused,
// symlinks are resolved inside the tree (one leading out is refused),
// oversized files are refused, each with the file named.
func extract(repo *git.Repository, commit plumbing.Hash, sub, dst string) (string, error) {
	tree, err := subtree(repo, commit, sub)
	if err != nil {
		return "", err
	}
	entries, problems, err := treeEntries(repo, tree, commit)
	if err != nil {
		return "", err
	}
	t, err := readTree(entries, problems)
	if err != nil {
		return "", err
	}
	digest := digestOf(t.files)
	if err := t.install(dst); err != nil {
		return "", err
	}
	m, _ := json.Marshal(marker{Commit: commit.String(), Path: sub, Digest: digest, ExecBits: true})
	if err := atomicfile.Write(dst+".json", m, 0o644); err != nil {
		return "", err
	}
	return digest, nil
}

// subtree is the tree at sub ("" for the root) in commit.
func subtree(repo *git.Repository, commit plumbing.Hash, sub string) (*object.Tree, error) {
	c, err := repo.CommitObject(commit)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", commit, err)
	}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", commit, err)
	}
	if sub != "" {
		if tree, err = tree.Tree(sub); err != nil {
			return nil, fmt.Errorf("path %q in commit %s: %w", sub, commit.String()[:12], err)
		}
	}
	return tree, nil
}

// treeEntry is one file of a hub tree (a symbolic link included).
type treeEntry struct {
	mode filemode.FileMode
	blob *object.Blob
}

// treeEntries lists the files of tree by slash path; an unsafe path is
// left out and reported as a problem.
func treeEntries(repo *git.Repository, tree *object.Tree, commit plumbing.Hash) (map[string]treeEntry, []string, error) {
	entries := map[string]treeEntry{}
	var problems []string
	walker := object.NewTreeWalker(tree, true, nil)
	defer walker.Close()
	for {
		name, e, err := walker.Next()
		if err == io.EOF {
			return entries, problems, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("read tree of %s: %w", commit, err)
		}
		if e.Mode == filemode.Dir || e.Mode == filemode.Submodule {
			continue
		}
		if err := checkRel(name); err != nil || path.Clean(name) != name || strings.HasPrefix(name, ".git/") || name == ".git" {
			problems = append(problems, fmt.Sprintf("%s: unsafe path refused", name))
			continue
		}
		b, err := repo.BlobObject(e.Hash)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		entries[name] = treeEntry{mode: e.Mode, blob: b}
	}
}

func blobContents(b *object.Blob) ([]byte, error) {
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, MaxFileSize+1))
}

// extracted is the content of a hub tree, checked, ready to install.
type extracted struct {
	names []string // sorted
	files map[string][]byte
	exec  map[string]bool
}

// readTree reads every file of entries, symbolic links resolved inside
// the tree, within the size limits. Any problem (problems carries those
// found so far) refuses the whole tree with an UnsafeTreeError.
func readTree(entries map[string]treeEntry, problems []string) (*extracted, error) {
	t := &extracted{names: slices.Sorted(maps.Keys(entries)), files: map[string][]byte{}, exec: map[string]bool{}}
	total := int64(0)
	for _, name := range t.names {
		e, problem, err := resolveLink(name, entries)
		if err != nil {
			return nil, err
		}
		if problem != "" {
			problems = append(problems, problem)
			continue
		}
		if e.blob.Size > MaxFileSize {
			problems = append(problems, fmt.Sprintf("%s: %d bytes is over the %d byte limit for hub files", name, e.blob.Size, MaxFileSize))
			continue
		}
		total += e.blob.Size
		if total > MaxTreeSize {
			return nil, fmt.Errorf("hub tree is over the %d byte limit", MaxTreeSize)
		}
		data, err := blobContents(e.blob)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		t.files[name] = data
		t.exec[name] = e.mode == filemode.Executable
	}
	if len(problems) > 0 {
		return nil, &UnsafeTreeError{Problems: problems}
	}
	return t, nil
}

// resolveLink follows the symbolic links from the file name inside the
// tree and returns the file it leads to, or the problem that refuses it.
func resolveLink(name string, entries map[string]treeEntry) (treeEntry, string, error) {
	e := entries[name]
	target := name
	for hops := 0; e.mode == filemode.Symlink; hops++ {
		link, err := blobContents(e.blob)
		if err != nil {
			return e, "", fmt.Errorf("%s: %w", name, err)
		}
		l := string(link)
		if hops > 8 {
			return e, fmt.Sprintf("%s: too many levels of symlinks", name), nil
		}
		if path.IsAbs(l) || strings.HasPrefix(l, "\\") {
			return e, fmt.Sprintf("%s: symlink to absolute path %q refused (it leads out of the hub tree)", name, l), nil
		}
		next := path.Join(path.Dir(target), l)
		if next == ".." || strings.HasPrefix(next, "../") {
			return e, fmt.Sprintf("%s: symlink to %q refused: it leads out of the hub tree", name, l), nil
		}
		ne, ok := entries[next]
		if !ok {
			return e, fmt.Sprintf("%s: symlink target %q is not a file of the hub tree", name, l), nil
		}
		target, e = next, ne
	}
	return e, "", nil
}

// install writes t into dst through a temporary directory renamed into
// place.
func (t *extracted) install(dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".tmp-tree-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	for _, name := range t.names {
		data, ok := t.files[name]
		if !ok {
			continue
		}
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		// Read-only: the cache is shared by every workspace and renderers
		// must not edit it in place. Executable files stay executable:
		// skill scripts keep their mode.
		perm := fs.FileMode(0o444)
		if t.exec[name] {
			perm = 0o555
		}
		if err := os.WriteFile(p, data, perm); err != nil {
			return err
		}
		if err := os.Chmod(p, perm); err != nil { // not subject to the umask
			return err
		}
	}
	_ = os.RemoveAll(dst) // a tree without its marker is an interrupted extraction
	if err := os.Rename(tmp, dst); err != nil {
		return fmt.Errorf("install tree %s: %w", dst, err)
	}
	return nil
}

// UnsafeTreeError lists the files that make a hub tree unacceptable.
type UnsafeTreeError struct{ Problems []string }

func (e *UnsafeTreeError) Error() string {
	return "refused unsafe hub content:\n  " + strings.Join(e.Problems, "\n  ")
}

// isNotExist reports a missing file through the fs error chain.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
