package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/actctl/actctl/internal/clock"
)

// DefaultDebounce is the quiet window used when Options.Debounce is
// zero. Saving a file produces several events (vim: rename, create, write,
// chmod, remove of the backup) within a millisecond or two; 50 ms coalesces
// them, and a burst of saves (git checkout, formatter on save) into one
// cycle, while keeping save-to-disk latency under the 100 ms target.
const DefaultDebounce = 50 * time.Millisecond

// CycleKind tells what a Cycle reports.
type CycleKind string

const (
	// CycleApply: Run was called (initial apply, file change, moved hub
	// source).
	CycleApply CycleKind = "apply"
	// CyclePoll: a hub poll failed; Run was not called for it. The poller is
	// retried at its next interval.
	CyclePoll CycleKind = "poll"
	// CycleWatch: a watch could not be set up (for example the inotify
	// watch limit was reached); changes below that path may be missed.
	CycleWatch CycleKind = "watch"
)

// Cycle is what Watch reports after each run, and for the problems
// that do not stop the watch. It is delivered to Options.Report from a
// single goroutine, one at a time, so a printer needs no locking.
type Cycle struct {
	Kind CycleKind
	// Initial is set for the first apply, which Watch does unconditionally.
	Initial bool
	// Start is when Run was called (or the poll / watch failure happened).
	Start time.Time
	// Duration is how long Run took.
	Duration time.Duration
	// Trigger lists the changed paths that caused the run, sorted, and
	// "hub:<name>" for each poller that reported a move. An event queue
	// overflow (changes lost) appears as "overflow".
	Trigger []string
	// Poller names the hub source whose poll failed (CyclePoll).
	Poller string
	// Err is Run's error (a config error with its position), the poll
	// error, or the watch error. The watch goes on regardless.
	Err error
	// Summary is Run's one-line summary ("applied: 2 changed, 0 pruned in
	// 9ms", "no changes").
	Summary string
	// JSON is Run's machine-readable result, embedded as "result" by
	// MarshalJSON.
	JSON any
}

// MarshalJSON renders the cycle as one stable JSON object, so that
// `-o json` can print one object per cycle:
// {"kind","initial","time","durationMs","trigger","poller","ok","error","summary","result"};
// initial and summary are always there ("apply failed" and the like when
// the cycle failed), as docs/json.md says.
func (c Cycle) MarshalJSON() ([]byte, error) {
	type out struct {
		Kind       CycleKind `json:"kind"`
		Initial    bool      `json:"initial"`
		Time       time.Time `json:"time"`
		DurationMS float64   `json:"durationMs"`
		Trigger    []string  `json:"trigger"`
		Poller     string    `json:"poller,omitempty"`
		OK         bool      `json:"ok"`
		Error      string    `json:"error,omitempty"`
		Summary    string    `json:"summary"`
		Result     any       `json:"result,omitempty"`
	}
	o := out{
		Kind: c.Kind, Initial: c.Initial, Time: c.Start,
		DurationMS: float64(c.Duration.Microseconds()) / 1000,
		Trigger:    c.Trigger, Poller: c.Poller, OK: c.Err == nil,
		Summary: c.Summary, Result: c.JSON,
	}
	if o.Trigger == nil {
		o.Trigger = []string{}
	}
	if c.Err != nil {
		o.Error = c.Err.Error()
		if o.Summary == "" {
			o.Summary = string(c.Kind) + " failed"
		}
	}
	return json.Marshal(o)
}

// Result is what one load+apply returns to the watch loop.
type Result struct {
	// Spec is what the configuration now depends on (it may reference
	// other files than before). It is added to Options.Base. When Run
	// fails, a non-zero Spec is added to the previous one (never replacing
	// it, so that the files of the last good config stay watched and fixing
	// any of them applies).
	Spec Spec
	// Written lists every path the run created, changed or removed
	// (directories included). Events for them are ignored as long as the
	// path is still in the state the run left it in, which is what prevents
	// apply -> event -> apply loops when outputs live inside watched
	// directories; a later edit by the user still counts.
	Written []string
	// Summary is the cycle's one-line summary.
	Summary string
	// JSON is the cycle's machine-readable result.
	JSON any
	// Again, when positive, asks for one more run that long after this
	// one (on Options.Clock), triggered by TriggerAgain unless another
	// run starts first: an apply whose inputs were saved too recently to
	// be recorded (racy) records them once they have settled.
	Again time.Duration
	// Silent: the run is not reported (a run again that changed
	// nothing: bookkeeping, not news).
	Silent bool
}

// TriggerAgain is the trigger of a run a Result.Again asked for.
const TriggerAgain = "(inputs settled)"

// Poller checks a hub source that has an `interval`.
type Poller struct {
	Name     string
	Interval time.Duration // <= 0: never polled
	// Poll fetches the source and reports whether it moved (the lock was
	// updated). It runs on the watch's single worker, never concurrently
	// with Run or another Poll, because both touch the hub cache and the
	// lock file. An error is reported (CyclePoll) and the source is polled
	// again at its next interval.
	Poll func(ctx context.Context) (moved bool, err error)
}

// Options configures Watch.
type Options struct {
	// Debounce is the quiet window: a cycle starts once no relevant event
	// arrived for this long. Zero means DefaultDebounce.
	Debounce time.Duration
	// Base is always watched, whatever Run returns: the workspace root's
	// *.cue and cue.mod/. It keeps a config that fails to load from the
	// very start watched, so that fixing it applies.
	Base Spec
	// Run does one load + apply. trigger holds the changed paths (nil for
	// the initial run). Its error does not stop the watch: it is reported
	// and the previous state on disk stays as it is. A panic in Run is
	// turned into an error for the same reason.
	Run func(ctx context.Context, trigger []string) (Result, error)
	// Pollers are the hub sources with an interval.
	Pollers []Poller
	// Clock times Result.Again (nil: the real clock; tests give a fake).
	Clock clock.Clock
	// Report receives one Cycle per run and one per poll or watch
	// failure. May be nil.
	Report func(Cycle)

	// eventHook, for tests, sees every path queued for the next run.
	eventHook func(path string)
}

// Watch applies once, then re-applies whenever a file the configuration
// depends on changes or a polled hub source moves, until ctx is cancelled.
//
// At most one run is in flight; changes arriving meanwhile queue exactly one
// more run (their paths are merged), so a burst of edits costs at most two
// runs and the last one always sees the final state. Watch returns nil when
// ctx is cancelled (SIGINT/SIGTERM), after the run in flight, which receives
// ctx, has returned. It returns an error only when the watch itself cannot
// work (no inotify instance).
//
// Wiring for `apply --watch` (the loop is generic over the work it
// triggers, so the command supplies load + apply and the printing):
//
//	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	err := watch.Watch(ctx, watch.Options{
//		Debounce: debounce, // --debounce, 0 = 50ms
//		Base:     watch.Workspace(root),
//		Run: func(ctx context.Context, trigger []string) (watch.Result, error) {
//			cfg, err := load(root) // positioned error; nothing is written
//			if err != nil {
//				return watch.Result{}, err
//			}
//			res, err := reconcile.Apply(ctx, cfg, opts)
//			return watch.Result{
//				Spec:    localComponents(cfg), // Dirs / Files the config references
//				Written: absPaths(res),        // every path Apply touched
//				Summary: res.Summary(), JSON: res,
//			}, err
//		},
//		Pollers: pollers, // one per hub source with an interval
//		Report: func(c watch.Cycle) {
//			// -o json: json.NewEncoder(stdout).Encode(c); else the summary
//			// to stdout, or "actctl: <err>" to stderr.
//		},
//	})
func Watch(ctx context.Context, o Options) error {
	if o.Run == nil {
		return errors.New("watch: no Run function")
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	defer fsw.Close()

	w := &watcher{
		o:        o,
		fsw:      fsw,
		debounce: o.Debounce,
		base:     o.Base.normalize(),
		watched:  map[string]bool{},
		fps:      map[string]watchFingerprint{},
		pending:  map[string]bool{},
		warned:   map[string]bool{},
	}
	if w.debounce <= 0 {
		w.debounce = DefaultDebounce
	}
	// Under a never-ending stream of events (a build writing into a watched
	// tree) the quiet window would never come; run anyway after maxWait.
	w.maxWait = max(10*w.debounce, 500*time.Millisecond)
	now := time.Now()
	for _, p := range o.Pollers {
		if p.Interval > 0 && p.Poll != nil {
			w.polls = append(w.polls, &watchPollState{Poller: p, next: now.Add(p.Interval)})
		}
	}
	return w.loop(ctx)
}

type watchPollState struct {
	Poller
	next time.Time
}

// watcher is the state of one Watch call. Every field is owned by the loop
// goroutine; the worker goroutine only receives a watchJob (whose pollers it
// reads but never writes) and sends back a result, which is what makes the
// watch race-free without locks.
type watcher struct {
	o                 Options
	fsw               *fsnotify.Watcher
	debounce, maxWait time.Duration

	base, spec Spec
	m          *watchMatcher
	watched    map[string]bool             // directories carrying a watch
	fps        map[string]watchFingerprint // paths written by runs -> state they were left in
	warned     map[string]bool             // paths whose watch failure was already reported

	pending      map[string]bool // changed paths not yet handed to a run
	force        []string        // triggers that bypass filtering ("overflow")
	firstPending time.Time
	lastEvent    time.Time

	polls    []*watchPollState
	running  bool
	again    clock.Timer // the run a Result.Again asked for; nil: none
	againDue bool        // its time came: the next quiet moment runs it
}

type watchJob struct {
	initial bool
	trigger []string
	polls   []*watchPollState
}

type watchJobResult struct {
	watchJob
	ran      bool
	start    time.Time
	dur      time.Duration
	res      Result
	err      error
	pollErrs []Cycle
}

func (w *watcher) loop(ctx context.Context) error {
	w.setSpec(w.base, time.Time{})
	done := make(chan watchJobResult, 1)
	w.start(ctx, watchJob{initial: true}, done)

	timer := time.NewTimer(time.Hour)
	timer.Stop()
	var timerC <-chan time.Time
	for {
		// Arm the timer for the next thing to do, but never while a run is
		// in flight: its completion re-evaluates everything anyway.
		timerC = nil
		var againC <-chan time.Time
		if !w.running {
			if at, ok := w.nextWake(); ok {
				timer.Reset(time.Until(at))
				timerC = timer.C
			}
			if w.again != nil {
				againC = w.again.C()
			}
		}
		select {
		case <-ctx.Done():
			if w.running {
				r := <-done
				w.finish(ctx, r)
			}
			return nil
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return errors.New("watch: event stream closed")
			}
			w.onEvent(ev)
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return errors.New("watch: event stream closed")
			}
			w.onError(err)
		case r := <-done:
			w.running = false
			w.finish(ctx, r)
		case <-timerC:
			w.maybeStart(ctx, done)
		case <-againC:
			w.again, w.againDue = nil, true
			w.maybeStart(ctx, done)
		}
		timer.Stop()
	}
}

// nextWake is when the loop must look again: the end of the quiet window
// (capped by maxWait) or the earliest poll.
func (w *watcher) nextWake() (time.Time, bool) {
	var at time.Time
	ok := false
	if len(w.pending) > 0 || len(w.force) > 0 {
		at = w.lastEvent.Add(w.debounce)
		if limit := w.firstPending.Add(w.maxWait); limit.Before(at) {
			at = limit
		}
		ok = true
	}
	for _, p := range w.polls {
		if !ok || p.next.Before(at) {
			at, ok = p.next, true
		}
	}
	return at, ok
}

// maybeStart starts a cycle if the quiet window is over or a poll is due.
func (w *watcher) maybeStart(ctx context.Context, done chan watchJobResult) {
	if w.running || ctx.Err() != nil {
		return
	}
	now := time.Now()
	var j watchJob
	for _, p := range w.polls {
		if !p.next.After(now) {
			j.polls = append(j.polls, p)
		}
	}
	quiet := !now.Before(w.lastEvent.Add(w.debounce)) || !now.Before(w.firstPending.Add(w.maxWait))
	// Due polls take the pending paths along even inside the quiet window:
	// the run reads the current state anyway, and a later event queues
	// another run.
	if quiet || len(j.polls) > 0 {
		j.trigger = w.takePending()
		if len(j.trigger) == 0 && w.againDue {
			j.trigger = []string{TriggerAgain}
		}
	}
	if len(j.trigger) == 0 && len(j.polls) == 0 {
		return
	}
	w.start(ctx, j, done)
}

// takePending empties the queue of changed paths and returns those that
// still matter: relevant to the current spec (it may have changed since the
// event arrived) and not in the state a run of ours left them in.
func (w *watcher) takePending() []string {
	var out []string
	for p := range w.pending {
		if !w.m.relevant(p) {
			continue
		}
		if fp, ok := w.fps[p]; ok && fp == watchFingerprintOf(p) {
			continue // our own write (or removal), untouched since
		}
		out = append(out, p)
	}
	slices.Sort(out)
	out = append(out, w.force...)
	clear(w.pending)
	w.force = nil
	return out
}

func (w *watcher) start(ctx context.Context, j watchJob, done chan<- watchJobResult) {
	w.running = true
	if j.initial || len(j.trigger) > 0 {
		// This run does what a run again was for, and asks again if need be.
		w.armAgain(0)
		w.againDue = false
	}
	go func() { done <- watchWork(ctx, j, w.o.Run) }()
}

// watchWork runs on the worker goroutine: due polls first (a moved source
// adds a trigger), then Run if anything changed.
func watchWork(ctx context.Context, j watchJob, run func(context.Context, []string) (Result, error)) (r watchJobResult) {
	r.watchJob = j
	trigger := j.trigger
	for _, p := range j.polls {
		if ctx.Err() != nil {
			break
		}
		t := time.Now()
		moved, err := watchSafePoll(ctx, p.Poll)
		if err != nil {
			r.pollErrs = append(r.pollErrs, Cycle{Kind: CyclePoll, Start: t, Duration: time.Since(t),
				Poller: p.Name, Trigger: []string{"hub:" + p.Name}, Err: fmt.Errorf("poll %s: %w", p.Name, err)})
			continue
		}
		if moved {
			trigger = append(trigger, "hub:"+p.Name)
		}
	}
	if (!j.initial && len(trigger) == 0) || ctx.Err() != nil {
		return r
	}
	r.trigger = trigger
	r.ran = true
	r.start = time.Now()
	r.res, r.err = watchSafeRun(ctx, run, trigger)
	r.dur = time.Since(r.start)
	return r
}

func watchSafeRun(ctx context.Context, run func(context.Context, []string) (Result, error), trigger []string) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("internal error (panic): %v", v)
		}
	}()
	return run(ctx, trigger)
}

func watchSafePoll(ctx context.Context, poll func(context.Context) (bool, error)) (moved bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("internal error (panic): %v", v)
		}
	}()
	return poll(ctx)
}

// finish records a finished job: poll schedule, fingerprints of what the
// run wrote, the new spec and its watches, then reports.
func (w *watcher) finish(ctx context.Context, r watchJobResult) {
	now := time.Now()
	for _, p := range r.polls {
		p.next = now.Add(p.Interval)
	}
	for _, c := range r.pollErrs {
		w.report(c)
	}
	if !r.ran {
		return
	}
	for _, p := range r.res.Written {
		p = watchAbsPath(p)
		w.fps[p] = watchFingerprintOf(p)
	}
	switch {
	case r.err == nil:
		w.setSpec(w.base.union(r.res.Spec), r.start)
	case !r.res.Spec.IsZero():
		w.setSpec(w.spec.union(r.res.Spec), r.start)
	}
	if r.err != nil && errors.Is(r.err, context.Canceled) && ctx.Err() != nil {
		return // abandoned on shutdown: nothing worth printing
	}
	w.armAgain(r.res.Again)
	if r.err == nil && r.res.Silent {
		return
	}
	w.report(Cycle{Kind: CycleApply, Initial: r.initial, Start: r.start, Duration: r.dur,
		Trigger: r.trigger, Err: r.err, Summary: r.res.Summary, JSON: r.res.JSON})
}

// armAgain arms the run a Result.Again asked for (d > 0), replacing
// one still to come.
func (w *watcher) armAgain(d time.Duration) {
	if w.again != nil {
		w.again.Stop()
		w.again = nil
	}
	if d > 0 {
		clk := w.o.Clock
		if clk == nil {
			clk = clock.Real()
		}
		w.again = clk.NewTimer(d)
	}
}

func (w *watcher) report(c Cycle) {
	if w.o.Report != nil {
		w.o.Report(c)
	}
}

// setSpec installs a new spec and brings the watches in line with it.
// Directories watched for the first time are checked for files modified
// after since (the start of the run that referenced them): such an edit
// happened after the run may have read the file, and before any watch could
// see it.
func (w *watcher) setSpec(s Spec, since time.Time) {
	if w.m != nil && s.equal(w.spec) {
		return
	}
	w.spec = s
	w.m = newWatchMatcher(s)
	added := w.resync()
	if since.IsZero() {
		return
	}
	for _, d := range added {
		for _, p := range watchChangedSince(d, since, w.m) {
			w.enqueue(p)
		}
	}
}

// resync brings the watches in line with the current spec and returns the
// directories newly watched. It repeats until nothing new turns up, because
// the file system moves while we look: a directory created (mkdir -p) after
// watchDesiredDirs looked but before its parent's watch was added sends no
// event to anyone, and only a second look after adding the watch finds it.
func (w *watcher) resync() []string {
	var all []string
	for range 100 { // bounded: a tree growing forever must not hang the loop
		added := w.syncWatches(watchDesiredDirs(w.spec))
		if len(added) == 0 {
			break
		}
		all = append(all, added...)
	}
	return all
}

// syncWatches adds and removes watches so that exactly want is watched, and
// returns the directories newly added.
func (w *watcher) syncWatches(want map[string]bool) []string {
	for d := range w.watched {
		if !want[d] {
			_ = w.fsw.Remove(d) // may already be gone with its directory
			delete(w.watched, d)
		}
	}
	var added []string
	for d := range want {
		if !w.watched[d] && w.add(d) {
			added = append(added, d)
		}
	}
	return added
}

func (w *watcher) add(d string) bool {
	if err := w.fsw.Add(d); err != nil {
		if !w.warned[d] && watchFingerprintOf(d).exists {
			w.warned[d] = true
			w.report(Cycle{Kind: CycleWatch, Start: time.Now(), Trigger: []string{d},
				Err: fmt.Errorf("watch %s: %w (changes below it are not seen)", d, err)})
		}
		return false
	}
	delete(w.warned, d)
	w.watched[d] = true
	return true
}

// unwatchTree drops d and every watched directory below it: after a rename
// the kernel keeps watching the moved directories, whose events would then
// carry their old, wrong paths.
func (w *watcher) unwatchTree(d string) {
	prefix := d + string(filepath.Separator)
	for p := range w.watched {
		if p == d || strings.HasPrefix(p, prefix) {
			_ = w.fsw.Remove(p)
			delete(w.watched, p)
		}
	}
}

func (w *watcher) enqueue(p string) {
	now := time.Now()
	if len(w.pending) == 0 && len(w.force) == 0 {
		w.firstPending = now
	}
	w.pending[p] = true
	w.lastEvent = now
	if w.o.eventHook != nil {
		w.o.eventHook(p)
	}
}

func (w *watcher) onEvent(ev fsnotify.Event) {
	if !ev.Has(fsnotify.Create) && !ev.Has(fsnotify.Write) && !ev.Has(fsnotify.Remove) && !ev.Has(fsnotify.Rename) {
		return // chmod, atime: indexers and backup tools touch these constantly
	}
	p := filepath.Clean(ev.Name)
	if (ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)) && w.watched[p] {
		w.unwatchTree(p)
	}
	if !w.m.relevant(p) {
		return
	}
	if ev.Has(fsnotify.Create) {
		if fp := watchFingerprintOf(p); fp.dir {
			w.onDirCreated(p)
			return
		}
	}
	w.enqueue(p)
}

// onDirCreated watches a directory that appeared. Inside a recursive tree
// its whole subtree is watched (it may have been moved in, or created with
// mkdir -p and filled before the watch existed) and the files found count as
// changes; the directory itself does not, since an empty directory changes
// nothing and actctl creates directories for its own outputs. Elsewhere it
// is a watched target or the ancestor of one that was missing: recompute the
// watches.
func (w *watcher) onDirCreated(p string) {
	if w.m.isTarget(p) {
		w.enqueue(p)
	}
	if w.m.treeOf(p) != "" {
		// Watch first, then list: a file created in between is seen twice
		// at worst, never missed.
		watchWalkTree(p, func(d string) {
			if !w.watched[d] {
				w.add(d)
			}
			for _, f := range watchFilesIn(d, w.m) {
				w.enqueue(f)
			}
		})
		return
	}
	for _, d := range w.resync() {
		if d != p && w.m.isTarget(d) {
			w.enqueue(d)
		}
		for _, f := range watchFilesIn(d, w.m) {
			w.enqueue(f)
		}
	}
}

func (w *watcher) onError(err error) {
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		// Events were lost: re-apply unconditionally and rebuild the
		// watches, which may have missed new directories.
		if len(w.pending) == 0 && len(w.force) == 0 {
			w.firstPending = time.Now()
		}
		if !slices.Contains(w.force, "overflow") {
			w.force = append(w.force, "overflow")
		}
		w.lastEvent = time.Now()
		w.resync()
		return
	}
	w.report(Cycle{Kind: CycleWatch, Start: time.Now(), Err: fmt.Errorf("watch: %w", err)})
}
