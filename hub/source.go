package hub

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/actctl/actctl/schema"
)

// sourceRun is one source on its way through Ensure's steps: what its
// config says, where its cache is, and the report being filled in.
type sourceRun struct {
	name string
	src  schema.HubSource
	url  string // the URL handed to go-git (see ensurer.gitURL)
	sub  string // the source's path inside the repository, cleaned
	dir  string // the cache directory, $ACTANT_HOME/hub/<key>
	ref  refSpec
	// update: the ref is re-resolved though the lock matches the config.
	update bool
	sr     SourceReport
}

// treeDir is where commit's tree of the source is extracted.
func (s *sourceRun) treeDir(commit string) string {
	return filepath.Join(s.dir, "trees", treeID(commit, s.sub))
}

// source makes one source available and returns its report and lock entry:
// pin (resolve ref, fetch, extract), then read and index its tree.
func (e *ensurer) source(ctx context.Context, name string, src schema.HubSource, prev *LockedSource) (SourceReport, LockedSource, error) {
	fail := func(err error) (SourceReport, LockedSource, error) {
		return SourceReport{}, LockedSource{}, sourceError(e.cfg, name, err)
	}
	s, err := e.newSourceRun(name, src)
	if err != nil {
		return fail(err)
	}
	entry, err := e.pin(ctx, s, prev)
	if err != nil {
		return fail(err)
	}
	if err := e.read(s, entry, prev); err != nil {
		return fail(err)
	}
	return s.sr, entry, nil
}

// newSourceRun checks the source's path and names its cache.
func (e *ensurer) newSourceRun(name string, src schema.HubSource) (*sourceRun, error) {
	u := e.gitURL(src.URL)
	sub := cleanSub(src.Path)
	if sub != "" {
		if err := checkRel(sub); err != nil {
			return nil, fmt.Errorf("path: %w", err)
		}
	}
	ref := refOf(src.Ref)
	return &sourceRun{
		name: name, src: src, url: u, sub: sub, ref: ref,
		dir:    filepath.Join(e.cfg.Home, "hub", sourceKey(u)),
		update: e.o.UpdateAll || slices.Contains(e.o.Update, name),
		sr:     SourceReport{Name: name, URL: redactURL(src.URL), Ref: ref.String()},
	}, nil
}

// pin returns the source's lock entry. When the lock matches the config
// (and no update asks otherwise) the lock decides: with the tree cached,
// no lock is taken and no network used. Otherwise the ref is resolved.
func (e *ensurer) pin(ctx context.Context, s *sourceRun, prev *LockedSource) (LockedSource, error) {
	if prev != nil && prev.matches(s.src) && !s.update {
		entry := *prev
		if m, ok := readMarker(s.treeDir(entry.Commit)); !ok || m.Digest != entry.Digest || !m.ExecBits {
			if err := e.materialize(ctx, s, &entry, true); err != nil {
				return LockedSource{}, err
			}
		}
		return entry, nil
	}
	entry := LockedSource{URL: redactURL(s.src.URL), Ref: s.src.Ref, Path: s.sub}
	if err := e.materialize(ctx, s, &entry, false); err != nil {
		return LockedSource{}, err
	}
	entry.LockedAt = lockedAt(prev, entry, s.src, e.o.Now())
	if prev != nil && prev.Commit != entry.Commit {
		s.sr.Previous = prev.Commit
	}
	return entry, nil
}

// lockedAt stamps a newly resolved entry: now (to the second), unless
// nothing moved since prev, whose stamp is kept so that the lock stays
// byte-identical.
func lockedAt(prev *LockedSource, entry LockedSource, src schema.HubSource, now time.Time) time.Time {
	if prev != nil && prev.Commit == entry.Commit && prev.Digest == entry.Digest && prev.Resolved == entry.Resolved && prev.matches(src) {
		return prev.LockedAt
	}
	return now.UTC().Truncate(time.Second)
}

// materialize ensures the commit is in the cache repository and its tree
// extracted, under the cache's lock. With locked, entry.Commit is fixed
// (fetched when missing) and the digest verified; otherwise the ref is
// resolved and entry is filled in.
func (e *ensurer) materialize(ctx context.Context, s *sourceRun, entry *LockedSource, locked bool) error {
	unlock, err := lockDir(ctx, s.dir)
	if err != nil {
		return err
	}
	defer unlock()
	repo, err := openRepo(filepath.Join(s.dir, "git"))
	if err != nil {
		return err
	}
	auth, err := authFor(s.src, s.url)
	if err != nil {
		return err
	}
	fo := fetchOpts{Name: s.name, URL: s.url, Auth: auth, Progress: e.o.Progress, RepoDir: filepath.Join(s.dir, "git")}
	commit := plumbing.NewHash(entry.Commit)
	if locked {
		err = e.fetchLocked(ctx, s, repo, fo, entry.Commit)
	} else {
		var res resolved
		if res, err = e.resolveRef(ctx, s, repo, fo); err == nil {
			commit = res.Commit
			entry.Commit, entry.Resolved = res.Commit.String(), res.Name
		}
	}
	if err != nil {
		return err
	}
	return s.extract(repo, commit, entry, locked)
}

// fetchLocked fetches the locked commit when the cache does not have it.
func (e *ensurer) fetchLocked(ctx context.Context, s *sourceRun, repo *git.Repository, fo fetchOpts, locked string) error {
	commit := plumbing.NewHash(locked)
	if hasCommit(repo, commit) {
		return nil
	}
	s.sr.Fetched = true
	e.progress("hub: fetching %s (%s) for locked commit %s", s.name, redactURL(s.src.URL), short(locked))
	return e.fetchCommit(ctx, repo, fo, s.ref, commit)
}

// resolveRef resolves the source's ref against its remote and fetches the
// commit; when the remote cannot be asked, see resolveOffline.
func (e *ensurer) resolveRef(ctx context.Context, s *sourceRun, repo *git.Repository, fo fetchOpts) (resolved, error) {
	e.progress("hub: resolving %s (%s) %s", s.name, redactURL(s.src.URL), s.ref)
	refs, lerr := listRemote(ctx, s.url, fo.Auth)
	if lerr != nil {
		return e.resolveOffline(s, repo, lerr)
	}
	s.sr.Fetched = true
	res, err := resolveRemote(refs, s.ref)
	if err != nil {
		return resolved{}, fmt.Errorf("resolve %s: %w", s.ref, err)
	}
	if s.ref.Kind == "commit" {
		return e.fetchBareCommit(ctx, repo, fo, s.ref.Value)
	}
	if !hasCommit(repo, res.Commit) {
		e.progress("hub: fetching %s %s (%s)", s.name, res.Name, short(res.Commit.String()))
		return res, e.fetchCommit(ctx, repo, fo, s.ref, res.Commit, res.Spec)
	}
	if res.Spec != "" {
		// Keep the local ref current for offline resolution later.
		_ = repo.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(localName(res.Name)), res.Commit))
	}
	return res, nil
}

// resolveOffline resolves the ref from the cache, with a warning, when
// the remote was unreachable (lerr) during an implicit sync; an explicit
// update fails instead.
func (e *ensurer) resolveOffline(s *sourceRun, repo *git.Repository, lerr error) (resolved, error) {
	why := remoteProblem(lerr, s.src, s.url)
	if s.update {
		return resolved{}, fmt.Errorf("cannot update: %s", why)
	}
	res, err := resolveLocal(repo, s.ref)
	if err != nil {
		return resolved{}, &offlineError{msg: fmt.Sprintf("%s; %v", why, err), errs: []error{lerr, err}}
	}
	s.sr.Offline = true
	e.warn("hub source %q (%s): %s; using %s at %s from the cache", s.name, redactURL(s.src.URL), why, s.ref, short(res.Commit.String()))
	return res, nil
}

// extract extracts commit's tree into the cache unless its marker is
// there already, and sets entry's digest; with locked, the digest must be
// the one entry pins.
func (s *sourceRun) extract(repo *git.Repository, commit plumbing.Hash, entry *LockedSource, locked bool) error {
	treeDir := s.treeDir(commit.String())
	if m, ok := readMarker(treeDir); ok && m.ExecBits {
		if locked && m.Digest != entry.Digest {
			return fmt.Errorf("commit %s does not match the digest in %s (%s, cache has %s): the lock was edited or the cache is damaged; run `actctl hub update %s`", short(entry.Commit), LockFile, entry.Digest, m.Digest, s.name)
		}
		entry.Digest = m.Digest
		return nil
	}
	digest, err := extract(repo, commit, s.sub, treeDir)
	if err != nil {
		return err
	}
	if locked && digest != entry.Digest {
		return fmt.Errorf("the content of commit %s does not match the digest in %s (%s, got %s): the lock was edited or the repository was rewritten", short(entry.Commit), LockFile, entry.Digest, digest)
	}
	entry.Digest = digest
	return nil
}

// read reads the pinned tree's components (from its index when valid,
// else the tree, indexed for the next run) into the source's report, and
// adds to Ensure's report what changed since prev.
func (e *ensurer) read(s *sourceRun, entry LockedSource, prev *LockedSource) error {
	treeDir := s.treeDir(entry.Commit)
	m, ok := readMarker(treeDir)
	if !ok || m.Digest != entry.Digest {
		return fmt.Errorf("cached tree %s is missing or does not match the digest %s", treeDir, entry.Digest)
	}
	comps, err := readComponents(s.dir, treeDir, m)
	if err != nil {
		return err
	}
	s.sr.Commit, s.sr.Digest, s.sr.Resolved, s.sr.Dir, s.sr.Layout, s.sr.Components = entry.Commit, entry.Digest, entry.Resolved, treeDir, comps.Layout, comps
	if prev == nil {
		e.rep.Changes = append(e.rep.Changes, diffComponents(s.name, nil, comps)...)
	} else if prev.Commit != entry.Commit || prev.Digest != entry.Digest {
		e.rep.Changes = append(e.rep.Changes, diffComponents(s.name, s.previous(prev), comps)...)
	}
	return nil
}

// previous is the components of the tree prev pinned, when it is still
// cached (nil otherwise: every component counts as added).
func (s *sourceRun) previous(prev *LockedSource) *Components {
	pd := filepath.Join(s.dir, "trees", treeID(prev.Commit, cleanSub(prev.Path)))
	pm, ok := readMarker(pd)
	if !ok {
		return nil
	}
	before, _ := readComponents(s.dir, pd, pm)
	return before
}
