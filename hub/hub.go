// Package hub makes components published in git repositories (skills, prompts,
// MCP servers, templates, backends) available to a workspace (README, "Hub:
// shared components from git, pinned"). It resolves each configured source's
// ref to a commit, pins it in actant.lock, keeps fetched objects and extracted
// trees in a cache under $ACTANT_HOME/hub, reads the tree in one of the
// supported layouts (actant-hub, Agent Skills, CUE) and merges the components
// into the config as "source@name".
//
// Hub content is untrusted: paths are checked, symlinks leading out are
// refused, file sizes are bounded, nothing is executed, and every
// component is validated with its file named in errors.
package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cuelang.org/go/cue/token"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/actctl/actctl/schema"
)

// lockWait bounds how long a process waits for another one fetching into
// the same cache directory.
const lockWait = 2 * time.Minute

// Options tune Ensure.
type Options struct {
	// Frozen fails when the lock is missing or stale instead of resolving,
	// and never writes the lock (CI: `apply --frozen`).
	Frozen bool
	// ReadOnly resolves what the lock lacks (filling the cache) but never
	// writes the lock: the read-only commands (validate, diff, status,
	// get, ...) use it as it is and warn when it is missing or stale
	// (README, "Hub"); only apply and hub sync|update write it.
	ReadOnly bool
	// Update names the sources whose refs are re-resolved even though the
	// config did not change them (`hub update SOURCE...`); nil: none.
	Update []string
	// UpdateAll re-resolves every source (`hub update`).
	UpdateAll bool
	// Progress receives fetch progress (one line per fetch plus the
	// server's progress); nil is quiet. Pass stderr only on a terminal.
	Progress io.Writer
	// Warn receives warnings (an unreachable remote served from cache).
	Warn func(string)
	// Now stamps newly locked entries; nil is time.Now.
	Now func() time.Time
}

// Report tells what Ensure did.
type Report struct {
	// Sources in name order.
	Sources []SourceReport `json:"sources"`
	// LockChanged is true when actant.lock was (or, with Frozen, would
	// have been) rewritten.
	LockChanged bool `json:"lockChanged"`
	// Changes are the components added, updated or removed by sources
	// whose commit changed, in source/kind/name order.
	Changes []Change `json:"changes"`
	// Warnings repeats what was passed to Options.Warn.
	Warnings []string `json:"warnings,omitempty"`
	// Elapsed is how long Ensure took, fetches included: a command's
	// summary time counts it (docs/json.md, apply's hubMs).
	Elapsed time.Duration `json:"-"`
}

// Fetched reports whether any source used the network.
func (r *Report) Fetched() bool {
	for _, s := range r.Sources {
		if s.Fetched {
			return true
		}
	}
	return false
}

// SourceReport is one source after Ensure.
type SourceReport struct {
	Name     string `json:"name"`
	URL      string `json:"url"`
	Ref      string `json:"ref"`
	Resolved string `json:"resolved,omitempty"`
	Commit   string `json:"commit"`
	Digest   string `json:"digest"`
	// Dir is the extracted, read-only component tree in the cache.
	Dir    string `json:"dir"`
	Layout string `json:"layout"`
	// Fetched is true when the network was used for this source.
	Fetched bool `json:"fetched"`
	// Offline is true when the remote was unreachable and the cache served.
	Offline bool `json:"offline,omitempty"`
	// Previous is the commit locked before, when it changed.
	Previous   string      `json:"previous,omitempty"`
	Components *Components `json:"-"`
}

// Change is one component difference between two commits of a source.
type Change struct {
	Source string `json:"source"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	// Op is added, updated or removed.
	Op   string `json:"op"`
	From string `json:"from,omitempty"` // previous version
	To   string `json:"to,omitempty"`   // new version
}

// Ref is the component's reference as used in the config: source@name.
func (c Change) Ref() string { return c.Source + "@" + c.Name }

// SourceError is a failure of one source; it names the source and its URL,
// at the position of its declaration (its ref when it has one).
type SourceError struct {
	Source, URL string
	Pos         token.Pos
	Err         error
}

func (e *SourceError) Error() string {
	at := ""
	if e.Pos.IsValid() {
		at = fmt.Sprintf("%s:%d:%d: ", e.Pos.Filename(), e.Pos.Line(), e.Pos.Column())
	}
	return fmt.Sprintf("%shub source %q (%s): %v", at, e.Source, redactURL(e.URL), e.Err)
}

// sourceError is a failure of source name of cfg.
func sourceError(cfg *schema.Config, name string, err error) *SourceError {
	pos := cfg.Pos(schema.Path("hub", name, "ref"))
	return &SourceError{Source: name, URL: cfg.Hub[name].URL, Pos: pos, Err: err}
}
func (e *SourceError) Unwrap() error { return e.Err }

// Ensure makes cfg's hub sources available and merges their components
// into cfg. It reads <cfg.Root>/actant.lock; a source whose lock entry
// matches its config and whose tree is cached is used as is, with no
// network at all. A new or changed source (or one named in Update) is
// resolved against its remote, fetched into <cfg.Home>/hub and locked; if
// the remote is unreachable during an implicit sync, the ref is resolved
// from the cache with a warning, and when it is not cached the error names
// the source and URL. The lock is rewritten only when it changed (never
// with Frozen). Components are merged as "source@name", templates' own
// references qualified with their source, positions pointing at the hub
// files; then every hub reference of the config is checked (unknown
// "src@name" gets a did-you-mean diagnostic at the user's field).
func Ensure(ctx context.Context, cfg *schema.Config, o Options) (*Report, error) {
	start := time.Now()
	rep, err := ensureSources(ctx, cfg, o)
	if rep != nil {
		rep.Elapsed = time.Since(start)
	}
	return rep, err
}

func ensureSources(ctx context.Context, cfg *schema.Config, o Options) (*Report, error) {
	lockPath := filepath.Join(cfg.Root, LockFile)
	old, err := ReadLock(lockPath)
	if err != nil {
		return nil, err
	}
	why := staleness(old, cfg.Hub)
	if o.Frozen && why != "" {
		return nil, fmt.Errorf("--frozen: %s (run `actctl hub sync` and commit %s)", why, LockFile)
	}
	for _, n := range o.Update {
		if _, ok := cfg.Hub[n]; !ok {
			msg := fmt.Sprintf("unknown hub source %q", n)
			if s := schema.Suggest(n, slices.Sorted(maps.Keys(cfg.Hub))); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, errors.New(msg)
		}
	}
	if len(cfg.Hub) == 0 && old == nil {
		return &Report{Sources: []SourceReport{}, Changes: []Change{}}, nil
	}
	e := &ensurer{cfg: cfg, o: o, rep: &Report{Sources: []SourceReport{}, Changes: []Change{}}}
	if e.o.Now == nil {
		e.o.Now = time.Now
	}
	next := &Lock{Version: lockVersion, Sources: map[string]LockedSource{}}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(cfg.Hub)) {
		var prev *LockedSource
		if old != nil {
			if p, ok := old.Sources[name]; ok {
				prev = &p
			}
		}
		sr, entry, err := e.source(ctx, name, cfg.Hub[name], prev)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		next.Sources[name] = entry
		e.rep.Sources = append(e.rep.Sources, sr)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for _, sr := range e.rep.Sources {
		Merge(cfg, sr.Name, sr.Components)
	}
	// A config the hub's components leave invalid writes nothing, the
	// lock included (docs/design.md, "Plan, then execute": an error means zero writes).
	ds := CheckRefs(cfg)
	if old == nil || string(old.Marshal()) != string(next.Marshal()) {
		e.rep.LockChanged = true
		if o.ReadOnly {
			if why == "" {
				why = LockFile + " is out of date"
			}
			e.warn("%s; this command does not write it: `actctl apply` or `actctl hub sync` will (then commit it)", why)
		} else if !o.Frozen && len(ds.Errors()) == 0 {
			if err := next.Write(lockPath); err != nil {
				return nil, err
			}
		}
	}
	if len(ds.Errors()) > 0 {
		return e.rep, ds
	}
	return e.rep, nil
}

type ensurer struct {
	cfg *schema.Config
	o   Options
	rep *Report
}

func (e *ensurer) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	e.rep.Warnings = append(e.rep.Warnings, msg)
	if e.o.Warn != nil {
		e.o.Warn(msg)
	}
}

func (e *ensurer) progress(format string, args ...any) {
	if e.o.Progress != nil {
		fmt.Fprintf(e.o.Progress, format+"\n", args...)
	}
}

// gitURL is the URL handed to go-git: a relative local path is taken
// relative to the workspace root.
func (e *ensurer) gitURL(u string) string {
	if ep, err := transport.NewEndpoint(u); err == nil && ep.Protocol != "file" {
		return u
	}
	if strings.HasPrefix(u, "file://") || filepath.IsAbs(u) {
		return u
	}
	return filepath.Join(e.cfg.Root, u)
}

// source makes one source available and returns its report and lock entry.
func (e *ensurer) source(ctx context.Context, name string, src schema.HubSource, prev *LockedSource) (SourceReport, LockedSource, error) {
	u := e.gitURL(src.URL)
	fail := func(err error) (SourceReport, LockedSource, error) {
		return SourceReport{}, LockedSource{}, sourceError(e.cfg, name, err)
	}
	sub := cleanSub(src.Path)
	if sub != "" {
		if err := checkRel(sub); err != nil {
			return fail(fmt.Errorf("path: %w", err))
		}
	}
	dir := filepath.Join(e.cfg.Home, "hub", sourceKey(u))
	ref := refOf(src.Ref)
	sr := SourceReport{Name: name, URL: redactURL(src.URL), Ref: ref.String()}
	update := e.o.UpdateAll || slices.Contains(e.o.Update, name)

	var entry LockedSource
	if prev != nil && prev.matches(src) && !update {
		// The lock decides. Fast path: tree cached, no lock, no network.
		entry = *prev
		treeDir := filepath.Join(dir, "trees", treeID(entry.Commit, sub))
		if m, ok := readMarker(treeDir); !ok || m.Digest != entry.Digest || !m.ExecBits {
			if err := e.materialize(ctx, name, src, u, dir, ref, &entry, &sr, true); err != nil {
				return fail(err)
			}
		}
	} else {
		entry = LockedSource{URL: redactURL(src.URL), Ref: src.Ref, Path: sub}
		if err := e.materialize(ctx, name, src, u, dir, ref, &entry, &sr, false); err != nil {
			return fail(err)
		}
		entry.LockedAt = e.o.Now().UTC().Truncate(time.Second)
		if prev != nil && prev.Commit == entry.Commit && prev.Digest == entry.Digest && prev.Resolved == entry.Resolved && prev.matches(src) {
			entry.LockedAt = prev.LockedAt // nothing moved: keep the lock byte-identical
		}
		if prev != nil && prev.Commit != entry.Commit {
			sr.Previous = prev.Commit
		}
	}
	treeDir := filepath.Join(dir, "trees", treeID(entry.Commit, sub))
	m, ok := readMarker(treeDir)
	if !ok || m.Digest != entry.Digest {
		return fail(fmt.Errorf("cached tree %s is missing or does not match the digest %s", treeDir, entry.Digest))
	}
	// The tree's index when it is valid (the satisfied path reads one
	// file), else the tree itself, indexed for the next run.
	comps, err := readComponents(dir, treeDir, m)
	if err != nil {
		return fail(err)
	}
	sr.Commit, sr.Digest, sr.Resolved, sr.Dir, sr.Layout, sr.Components = entry.Commit, entry.Digest, entry.Resolved, treeDir, comps.Layout, comps
	if prev == nil {
		e.rep.Changes = append(e.rep.Changes, diffComponents(name, nil, comps)...)
	} else if prev.Commit != entry.Commit || prev.Digest != entry.Digest {
		var before *Components
		pd := filepath.Join(dir, "trees", treeID(prev.Commit, cleanSub(prev.Path)))
		if pm, ok := readMarker(pd); ok {
			before, _ = readComponents(dir, pd, pm)
		}
		e.rep.Changes = append(e.rep.Changes, diffComponents(name, before, comps)...)
	}
	return sr, entry, nil
}

// materialize ensures the commit is in the cache repository and its tree
// extracted. With locked, entry.Commit is fixed and the digest verified;
// otherwise the ref is resolved (remote first, the cache when the remote is
// unreachable during an implicit sync) and entry is filled in.
func (e *ensurer) materialize(ctx context.Context, name string, src schema.HubSource, u, dir string, ref refSpec, entry *LockedSource, sr *SourceReport, locked bool) error {
	unlock, err := lockDir(ctx, dir)
	if err != nil {
		return err
	}
	defer unlock()
	repo, err := openRepo(filepath.Join(dir, "git"))
	if err != nil {
		return err
	}
	auth, err := authFor(src, u)
	if err != nil {
		return err
	}
	fo := fetchOpts{Name: name, URL: u, Auth: auth, Progress: e.o.Progress, RepoDir: filepath.Join(dir, "git")}
	var commit plumbing.Hash
	if locked {
		commit = plumbing.NewHash(entry.Commit)
		if !hasCommit(repo, commit) {
			sr.Fetched = true
			e.progress("hub: fetching %s (%s) for locked commit %s", name, redactURL(src.URL), short(entry.Commit))
			if err := e.fetchCommit(ctx, repo, fo, ref, commit); err != nil {
				return err
			}
		}
	} else {
		update := e.o.UpdateAll || slices.Contains(e.o.Update, name)
		e.progress("hub: resolving %s (%s) %s", name, redactURL(src.URL), ref)
		refs, lerr := listRemote(ctx, u, auth)
		var res resolved
		if lerr != nil {
			why := remoteProblem(lerr, src, u)
			if update {
				return fmt.Errorf("cannot update: %s", why)
			}
			res, err = resolveLocal(repo, ref)
			if err != nil {
				return &offlineError{msg: fmt.Sprintf("%s; %v", why, err), errs: []error{lerr, err}}
			}
			sr.Offline = true
			e.warn("hub source %q (%s): %s; using %s at %s from the cache", name, redactURL(src.URL), why, ref, short(res.Commit.String()))
		} else {
			sr.Fetched = true
			if res, err = resolveRemote(refs, ref); err != nil {
				return fmt.Errorf("resolve %s: %w", ref, err)
			}
			if ref.Kind == "commit" {
				if res, err = e.fetchBareCommit(ctx, repo, fo, ref.Value); err != nil {
					return err
				}
			} else if !hasCommit(repo, res.Commit) {
				e.progress("hub: fetching %s %s (%s)", name, res.Name, short(res.Commit.String()))
				if err := e.fetchCommit(ctx, repo, fo, ref, res.Commit, res.Spec); err != nil {
					return err
				}
			} else if res.Spec != "" {
				// Keep the local ref current for offline resolution later.
				_ = repo.Storer.SetReference(plumbing.NewHashReference(plumbing.ReferenceName(localName(res.Name)), res.Commit))
			}
		}
		commit = res.Commit
		entry.Commit, entry.Resolved = res.Commit.String(), res.Name
	}
	treeDir := filepath.Join(dir, "trees", treeID(commit.String(), cleanSub(src.Path)))
	if m, ok := readMarker(treeDir); ok && m.ExecBits {
		if locked && m.Digest != entry.Digest {
			return fmt.Errorf("commit %s does not match the digest in %s (%s, cache has %s): the lock was edited or the cache is damaged; run `actctl hub update %s`", short(entry.Commit), LockFile, entry.Digest, m.Digest, name)
		}
		entry.Digest = m.Digest
		return nil
	}
	digest, err := extract(repo, commit, cleanSub(src.Path), treeDir)
	if err != nil {
		return err
	}
	if locked && digest != entry.Digest {
		return fmt.Errorf("the content of commit %s does not match the digest in %s (%s, got %s): the lock was edited or the repository was rewritten", short(entry.Commit), LockFile, entry.Digest, digest)
	}
	entry.Digest = digest
	return nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// offlineError is a failed offline fallback: its message names why the
// remote was unreachable and why the cache could not answer, and it wraps
// both causes, so errors.Is(err, context.Canceled) sees an interrupt.
type offlineError struct {
	msg  string
	errs []error
}

func (e *offlineError) Error() string   { return e.msg }
func (e *offlineError) Unwrap() []error { return e.errs }
