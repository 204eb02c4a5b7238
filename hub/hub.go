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
// into cfg. It reads <cfg.Root>/actant.lock and runs, per source in name
// order (source.go), then for all of them (docs/design.md, "The hub in
// steps"):
//
//  1. resolve ref: a source whose lock entry matches its config (and is
//     not named in Update) keeps its locked commit, and with its tree
//     cached uses no lock file and no network at all; otherwise the ref is
//     resolved against the remote (ensurer.resolveRef), or from the cache
//     with a warning when the remote is unreachable during an implicit
//     sync (resolveOffline; not cached: the error names source and URL);
//  2. fetch: the commit into the cache repository under <cfg.Home>/hub
//     (fetch.go: shallow first, then the full history);
//  3. extract: its tree, checked, into the cache (sourceRun.extract; a
//     locked digest must match);
//  4. read: the tree in its layout (ReadTree, layout.go);
//  5. index: what it read, kept beside the tree so that the next run reads
//     one file (readComponents, index.go);
//  6. merge: the components as "source@name", templates' own references
//     qualified with their source, positions at the hub files (Merge);
//  7. check refs: every hub reference of the config (CheckRefs: unknown
//     "src@name" gets a did-you-mean diagnostic at the user's field).
//
// The lock is rewritten last, only when it changed, never with Frozen or
// ReadOnly, and not when step 7 found errors (ensurer.writeLock).
func Ensure(ctx context.Context, cfg *schema.Config, o Options) (*Report, error) {
	start := time.Now()
	rep, err := ensureSources(ctx, cfg, o)
	if rep != nil {
		rep.Elapsed = time.Since(start)
	}
	return rep, err
}

// ensureSources runs the steps Ensure lists: each source is pinned and
// read (source.go), then all are merged and checked, and the lock written.
func ensureSources(ctx context.Context, cfg *schema.Config, o Options) (*Report, error) {
	lockPath := filepath.Join(cfg.Root, LockFile)
	old, err := ReadLock(lockPath)
	if err != nil {
		return nil, err
	}
	why := staleness(old, cfg.Hub)
	if err := checkOptions(o, why, cfg.Hub); err != nil {
		return nil, err
	}
	if len(cfg.Hub) == 0 && old == nil {
		return &Report{Sources: []SourceReport{}, Changes: []Change{}}, nil
	}
	e := &ensurer{cfg: cfg, o: o, rep: &Report{Sources: []SourceReport{}, Changes: []Change{}}}
	if e.o.Now == nil {
		e.o.Now = time.Now
	}
	next, err := e.sources(ctx, old)
	if err != nil {
		return nil, err
	}
	for _, sr := range e.rep.Sources {
		Merge(cfg, sr.Name, sr.Components)
	}
	// A config the hub's components leave invalid writes nothing, the
	// lock included (docs/design.md, "Plan, then execute": an error means zero writes).
	ds := CheckRefs(cfg)
	if err := e.writeLock(lockPath, old, next, why, len(ds.Errors()) > 0); err != nil {
		return nil, err
	}
	if len(ds.Errors()) > 0 {
		return e.rep, ds
	}
	return e.rep, nil
}

// checkOptions refuses a frozen run against a stale lock (why says how it
// is stale; "" is current) and an update of a source cfg does not declare.
func checkOptions(o Options, why string, hub map[string]schema.HubSource) error {
	if o.Frozen && why != "" {
		return fmt.Errorf("--frozen: %s (run `actctl hub sync` and commit %s)", why, LockFile)
	}
	for _, n := range o.Update {
		if _, ok := hub[n]; !ok {
			msg := fmt.Sprintf("unknown hub source %q", n)
			if s := schema.Suggest(n, slices.Sorted(maps.Keys(hub))); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return errors.New(msg)
		}
	}
	return nil
}

// sources pins and reads every source of the config in name order, into
// the report, and returns the lock they make. Every source is tried; the
// failures are joined.
func (e *ensurer) sources(ctx context.Context, old *Lock) (*Lock, error) {
	next := &Lock{Version: lockVersion, Sources: map[string]LockedSource{}}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(e.cfg.Hub)) {
		var prev *LockedSource
		if old != nil {
			if p, ok := old.Sources[name]; ok {
				prev = &p
			}
		}
		sr, entry, err := e.source(ctx, name, e.cfg.Hub[name], prev)
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
	return next, nil
}

// writeLock records next at lockPath when it differs from old: never with
// Frozen or when the merged config has errors (invalid), and with ReadOnly
// only a warning that says why the lock is out of date.
func (e *ensurer) writeLock(lockPath string, old, next *Lock, why string, invalid bool) error {
	if old != nil && string(old.Marshal()) == string(next.Marshal()) {
		return nil
	}
	e.rep.LockChanged = true
	switch {
	case e.o.ReadOnly:
		if why == "" {
			why = LockFile + " is out of date"
		}
		e.warn("%s; this command does not write it: `actctl apply` or `actctl hub sync` will (then commit it)", why)
	case !e.o.Frozen && !invalid:
		return next.Write(lockPath)
	}
	return nil
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
