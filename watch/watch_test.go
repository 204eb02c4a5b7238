package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/internal/testutil"
)

// watchDeadline bounds every wait. It is generous on purpose: waits poll for the
// expected state and return as soon as it holds, so it only matters when the
// behaviour is broken.
const watchDeadline = 20 * time.Second

// watchRunRec is what one call of the fake Run saw.
type watchRunRec struct {
	trigger []string
	config  string   // content of actant.cue
	files   []string // files below the referenced component dirs (relative to root)
	err     error
}

// watchHarness runs Watch over a temporary workspace with a fake Run that
// behaves like the real one in the ways the loop cares about: it reads the
// config (actant.cue), derives the referenced component directories from it
// (lines "dir: NAME" / "file: NAME"), fails on "broken", and optionally
// writes outputs.
type watchHarness struct {
	t    *testing.T
	root string

	mu     sync.Mutex
	runs   []watchRunRec
	cycles []Cycle
	wake   chan struct{}

	// hooks, set before start
	write   func(n int) []string // outputs written by run n; returns the written paths
	block   chan struct{}        // if non-nil, each run waits for a value (or ctx)
	entered chan int             // if non-nil, receives the run number on entry
	pollers []Poller
	queued  chan string  // if non-nil, receives every path the loop queues
	active  atomic.Int32 // Run/Poll calls in flight, to prove they never overlap
	overlap atomic.Bool

	cancel context.CancelFunc
	done   chan error
}

func newWatchHarness(t *testing.T) *watchHarness {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &watchHarness{t: t, root: root, wake: make(chan struct{}, 1)}
	h.writeFile("actant.cue", "v0\n")
	return h
}

func (h *watchHarness) path(rel string) string { return filepath.Join(h.root, filepath.FromSlash(rel)) }

func (h *watchHarness) writeFile(rel, content string) {
	h.t.Helper()
	p := h.path(rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *watchHarness) enter() {
	if h.active.Add(1) > 1 {
		h.overlap.Store(true)
	}
}
func (h *watchHarness) leave() { h.active.Add(-1) }

func (h *watchHarness) run(ctx context.Context, trigger []string) (Result, error) {
	h.enter()
	defer h.leave()
	h.mu.Lock()
	n := len(h.runs)
	h.mu.Unlock()
	if h.entered != nil {
		h.entered <- n
	}
	h.mu.Lock()
	block := h.block
	h.mu.Unlock()
	if block != nil {
		select {
		case <-block:
		case <-ctx.Done():
			return Result{}, ctx.Err()
		}
	}
	rec := watchRunRec{trigger: slices.Clone(trigger)}
	res, err := h.load(&rec)
	if err == nil && h.write != nil {
		res.Written = h.write(n)
	}
	rec.err = err
	h.mu.Lock()
	h.runs = append(h.runs, rec)
	h.mu.Unlock()
	res.Summary = fmt.Sprintf("run %d", n)
	return res, err
}

func (h *watchHarness) load(rec *watchRunRec) (Result, error) {
	b, err := os.ReadFile(h.path("actant.cue"))
	if err != nil {
		return Result{}, err
	}
	rec.config = string(b)
	var res Result
	for i, line := range strings.Split(rec.config, "\n") {
		if strings.Contains(line, "broken") {
			return res, fmt.Errorf("actant.cue:%d:1: expected value, found broken", i+1)
		}
		if name, ok := strings.CutPrefix(line, "dir: "); ok {
			dir := h.path(name)
			res.Spec.Dirs = append(res.Spec.Dirs, dir)
			err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if !d.IsDir() {
					rel, _ := filepath.Rel(h.root, p)
					rec.files = append(rec.files, filepath.ToSlash(rel))
				}
				return nil
			})
			if err != nil {
				return res, fmt.Errorf("component %s: %w", name, err)
			}
		}
		if name, ok := strings.CutPrefix(line, "file: "); ok {
			res.Spec.Files = append(res.Spec.Files, h.path(name))
			if _, err := os.ReadFile(h.path(name)); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

func (h *watchHarness) report(c Cycle) {
	h.mu.Lock()
	h.cycles = append(h.cycles, c)
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

func (h *watchHarness) start(debounce time.Duration) {
	h.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h.cancel = cancel
	h.done = make(chan error, 1)
	opts := Options{
		Debounce: debounce,
		Base:     Workspace(h.root),
		Run:      h.run,
		Pollers:  h.pollers,
		Report:   h.report,
	}
	if h.queued != nil {
		opts.eventHook = func(p string) {
			select {
			case h.queued <- p:
			default: // never block the loop
			}
		}
	}
	go func() { h.done <- Watch(ctx, opts) }()
	h.t.Cleanup(func() {
		h.stop()
		if h.overlap.Load() {
			h.t.Error("Run/Poll calls overlapped")
		}
	})
	h.waitRuns("initial apply", func(rs []watchRunRec) bool { return len(rs) >= 1 })
	h.waitCycles("initial report", func(cs []Cycle) bool { return len(cs) >= 1 })
}

func (h *watchHarness) stop() {
	if h.cancel == nil {
		return
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		if err != nil {
			h.t.Errorf("Watch returned %v, want nil on cancellation", err)
		}
	case <-time.After(watchDeadline):
		h.t.Error("Watch did not return after cancellation")
	}
}

func (h *watchHarness) snapshot() ([]watchRunRec, []Cycle) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.runs), slices.Clone(h.cycles)
}

// waitFor polls cond until it holds or the watchDeadline passes.
func (h *watchHarness) waitFor(what string, cond func([]watchRunRec, []Cycle) bool) {
	h.t.Helper()
	limit := time.After(watchDeadline)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		rs, cs := h.snapshot()
		if cond(rs, cs) {
			return
		}
		select {
		case <-h.wake:
		case <-tick.C:
		case <-limit:
			rs, cs := h.snapshot()
			h.t.Fatalf("timed out waiting for %s\nruns: %+v\ncycles: %+v", what, rs, cs)
		}
	}
}

func (h *watchHarness) waitRuns(what string, cond func([]watchRunRec) bool) {
	h.t.Helper()
	h.waitFor(what, func(rs []watchRunRec, _ []Cycle) bool { return cond(rs) })
}

func (h *watchHarness) waitCycles(what string, cond func([]Cycle) bool) {
	h.t.Helper()
	h.waitFor(what, func(_ []watchRunRec, cs []Cycle) bool { return cond(cs) })
}

// waitConfig waits for a successful run that saw config content want, and
// for its report.
func (h *watchHarness) waitConfig(want string) {
	h.t.Helper()
	h.waitFor(fmt.Sprintf("a run seeing %q", want), func(rs []watchRunRec, cs []Cycle) bool {
		for i, r := range rs {
			if r.config == want && r.err == nil && watchCountKind(cs, CycleApply) > i {
				return true
			}
		}
		return false
	})
}

func watchCountKind(cs []Cycle, k CycleKind) int {
	n := 0
	for _, c := range cs {
		if c.Kind == k {
			n++
		}
	}
	return n
}

func watchLastRun(rs []watchRunRec) watchRunRec { return rs[len(rs)-1] }

func TestWatchEditStyles(t *testing.T) {
	h := newWatchHarness(t)
	h.start(0)
	cfg := h.path("actant.cue")

	// 1. In-place write (VS Code, echo >).
	if err := os.WriteFile(cfg, []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	h.waitConfig("v1\n")

	// 2. Write a temp file, rename it over the config (most editors,
	// including actctl's own atomic writes).
	tmp := h.path(".actant.cue.tmp.123")
	if err := os.WriteFile(tmp, []byte("v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, cfg); err != nil {
		t.Fatal(err)
	}
	h.waitConfig("v2\n")

	// 3. vim with backupcopy=no: probe 4913, swap file, rename the
	// original to a backup, create the new file, remove the backup.
	swp := h.path(".actant.cue.swp")
	h.writeFile(".actant.cue.swp", "swap")
	h.writeFile("4913", "")
	if err := os.Remove(h.path("4913")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(cfg, cfg+"~"); err != nil {
		t.Fatal(err)
	}
	h.writeFile("actant.cue", "v3\n")
	if err := os.Remove(cfg + "~"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(swp); err != nil {
		t.Fatal(err)
	}
	h.waitConfig("v3\n")

	// 4. Plain remove + create.
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	h.writeFile("actant.cue", "v4\n")
	h.waitConfig("v4\n")

	rs, cs := h.snapshot()
	for _, r := range rs[1:] {
		for _, p := range r.trigger {
			if p != cfg {
				t.Errorf("trigger %q: only actant.cue changed in a way that matters", p)
			}
		}
	}
	for _, c := range cs {
		if c.Kind != CycleApply || c.Err != nil && !strings.Contains(c.Err.Error(), "no such file") {
			t.Errorf("unexpected report %+v", c)
		}
	}
	if !cs[0].Initial || cs[0].Trigger != nil {
		t.Errorf("first cycle = %+v, want the initial one", cs[0])
	}
}

func TestWatchNewSubdirInComponent(t *testing.T) {
	h := newWatchHarness(t)
	h.writeFile("actant.cue", "dir: skills\n")
	h.writeFile("skills/a/SKILL.md", "a")
	h.start(0)

	// A new file in a new, nested sub-directory (mkdir -p + write, as fast
	// as possible so it races the watch on the new directories).
	h.writeFile("skills/b/deep/er/SKILL.md", "b")
	h.waitRuns("new nested file picked up", func(rs []watchRunRec) bool {
		return slices.Contains(watchLastRun(rs).files, "skills/b/deep/er/SKILL.md")
	})
	// The new directories are watched now: an in-place edit there is seen
	// and reported under its real path.
	rs, _ := h.snapshot()
	n := len(rs)
	h.writeFile("skills/b/deep/er/SKILL.md", "b2")
	want := h.path("skills/b/deep/er/SKILL.md")
	h.waitRuns("edit in new sub-directory", func(rs []watchRunRec) bool {
		return len(rs) > n && slices.Contains(watchLastRun(rs).trigger, want)
	})

	// A directory moved in from outside the tree with content.
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(outside, "c", "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "c", "refs", "r.md"), []byte("r"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(outside, "c"), h.path("skills/c")); err != nil {
		t.Fatal(err)
	}
	h.waitRuns("moved-in directory picked up", func(rs []watchRunRec) bool {
		return slices.Contains(watchLastRun(rs).files, "skills/c/refs/r.md")
	})

	// A renamed directory: its watches follow the new name, events carry
	// the new path, never the old one.
	if err := os.Rename(h.path("skills/c"), h.path("skills/d")); err != nil {
		t.Fatal(err)
	}
	h.waitRuns("renamed directory seen", func(rs []watchRunRec) bool {
		return slices.Contains(watchLastRun(rs).files, "skills/d/refs/r.md")
	})
	rs, _ = h.snapshot()
	n = len(rs)
	h.writeFile("skills/d/refs/r.md", "r2")
	want = h.path("skills/d/refs/r.md")
	h.waitRuns("edit below renamed directory", func(rs []watchRunRec) bool {
		return len(rs) > n && slices.Contains(watchLastRun(rs).trigger, want)
	})
	rs, _ = h.snapshot()
	for _, r := range rs[n:] {
		for _, p := range r.trigger {
			if strings.Contains(p, "skills/c/") {
				t.Errorf("stale path %q reported after rename", p)
			}
		}
	}
}

// TestWatchBurstQueuesOneRun proves "one in flight, at most one queued"
// deterministically: the first run is held while 50 writes happen, so all
// of them must collapse into exactly one more run, which sees the final
// content.
func TestWatchBurstQueuesOneRun(t *testing.T) {
	h := newWatchHarness(t)
	h.entered = make(chan int, 100)
	h.queued = make(chan string, 1000)
	h.start(0)
	<-h.entered // initial

	hold := make(chan struct{})
	h.mu.Lock()
	h.block = hold
	h.mu.Unlock()
	cfg := h.path("actant.cue")
	if err := os.WriteFile(cfg, []byte("w0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.entered:
	case <-time.After(watchDeadline):
		t.Fatal("no run after the first write")
	}
	for i := 1; i < 50; i++ {
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf("w%d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Sentinel: a second file whose event arrives after all 50 writes.
	h.writeFile("zz.cue", "sentinel")
	// Release the held run only once the loop has queued the sentinel, so
	// that every event of the burst is known before the run ends.
	for p := range h.queued {
		if p == h.path("zz.cue") {
			break
		}
	}
	// Give a broken loop the chance to start a second, concurrent run (a
	// correct one never does, however long we wait; nothing is timed).
	select {
	case n := <-h.entered:
		t.Fatalf("run %d started while another was in flight", n)
	case <-time.After(4 * DefaultDebounce):
	}
	close(hold) // release the held run and every later one
	h.waitConfig("w49\n")
	h.waitRuns("queued run includes the sentinel", func(rs []watchRunRec) bool {
		return slices.Contains(watchLastRun(rs).trigger, h.path("zz.cue"))
	})
	rs, _ := h.snapshot()
	// initial, the held run, exactly one queued run.
	if len(rs) != 3 {
		t.Fatalf("%d runs, want 3 (initial, in flight, one queued): %+v", len(rs), rs)
	}
	if got := rs[2].trigger; !slices.Equal(got, []string{cfg, h.path("zz.cue")}) {
		t.Errorf("queued trigger = %q, want both paths once", got)
	}
}

// TestWatchBurstFewCycles is the free-running variant: 50 writes in a row
// give few cycles, and the last one sees the final content.
func TestWatchBurstFewCycles(t *testing.T) {
	h := newWatchHarness(t)
	h.start(0)
	cfg := h.path("actant.cue")
	for i := 0; i < 50; i++ {
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf("b%d\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.waitConfig("b49\n")
	rs, _ := h.snapshot()
	if n := len(rs) - 1; n > 10 {
		t.Errorf("50 writes caused %d cycles; debounce and queueing should coalesce them", n)
	}
	if got := watchLastRun(rs).config; got != "b49\n" {
		t.Errorf("last cycle saw %q, want the final state", got)
	}
}

// TestWatchNoReapplyLoop: every run writes outputs (with new content each
// time) into watched places: the component tree, the workspace root with a
// name matching *.cue, and .actant/. None of that may start a cycle.
func TestWatchNoReapplyLoop(t *testing.T) {
	h := newWatchHarness(t)
	h.writeFile("actant.cue", "dir: skills\n")
	h.writeFile("skills/a/SKILL.md", "a")
	h.write = func(n int) []string {
		var written []string
		for _, rel := range []string{"skills/a/generated.md", "skills/out/new/x.md", "zz_gen.cue", "CLAUDE.md", ".actant/state.json"} {
			p := h.path(rel)
			created, err := atomicfile.MkdirAll(filepath.Dir(p))
			if err != nil {
				t.Error(err)
			}
			written = append(written, created...)
			if err := atomicfile.Write(p, []byte(fmt.Sprintf("run %d\n", n)), 0o644); err != nil {
				t.Error(err)
			}
			written = append(written, p)
		}
		return written
	}
	h.start(0)
	cfg := h.path("actant.cue")
	h.writeFile("actant.cue", "dir: skills\n#1\n")
	h.waitConfig("dir: skills\n#1\n")
	h.writeFile("actant.cue", "dir: skills\n#2\n")
	h.waitConfig("dir: skills\n#2\n")

	rs, _ := h.snapshot()
	if len(rs) != 3 {
		t.Errorf("%d runs, want 3 (initial + one per edit)", len(rs))
	}
	for _, r := range rs[1:] {
		if !slices.Equal(r.trigger, []string{cfg}) {
			t.Errorf("trigger %q, want only %s: own writes must not trigger", r.trigger, cfg)
		}
	}

	// A user editing a file actctl wrote is a real change.
	n := len(rs)
	h.writeFile("skills/a/generated.md", "hand edit")
	want := h.path("skills/a/generated.md")
	h.waitRuns("hand edit of a written file", func(rs []watchRunRec) bool {
		return len(rs) > n && slices.Contains(watchLastRun(rs).trigger, want)
	})
}

func TestWatchIgnoresNoise(t *testing.T) {
	h := newWatchHarness(t)
	h.writeFile("actant.cue", "dir: skills\n")
	h.writeFile("skills/a/SKILL.md", "a")
	h.writeFile("skills/.git/HEAD", "ref")
	h.start(0)

	for _, rel := range []string{
		".actant.cue.swp", ".actant.cue.swx", "actant.cue~", "4913", ".#actant.cue", "#actant.cue#",
		".actctl-tmp-123", "README.md", "actant.lock", ".actant/state.json",
		"skills/a/.SKILL.md.swp", "skills/a/SKILL.md~", "skills/.git/HEAD", "skills/.git/objects/ab/cd",
		"skills/a/.actctl-tmp-9", "skills/.actant/x",
	} {
		h.writeFile(rel, "noise")
	}
	// Sentinel: its event is queued after all the noise.
	h.writeFile("actant.cue", "dir: skills\n#s\n")
	h.waitConfig("dir: skills\n#s\n")
	rs, _ := h.snapshot()
	if len(rs) != 2 {
		t.Errorf("%d runs, want 2", len(rs))
	}
	if got := watchLastRun(rs).trigger; !slices.Equal(got, []string{h.path("actant.cue")}) {
		t.Errorf("trigger = %q, want only actant.cue", got)
	}
}

func TestWatchBrokenConfigKeepsWatching(t *testing.T) {
	h := newWatchHarness(t)
	h.writeFile("actant.cue", "dir: skills\n")
	h.writeFile("skills/a/SKILL.md", "a")
	h.start(0)

	h.writeFile("actant.cue", "dir: skills\nbroken\n")
	h.waitCycles("error reported", func(cs []Cycle) bool {
		c := cs[len(cs)-1]
		return c.Err != nil && strings.Contains(c.Err.Error(), "actant.cue:2:1")
	})
	// Component edits are still seen while the config is broken (the last
	// good spec stays watched).
	h.writeFile("skills/a/SKILL.md", "a2")
	want := h.path("skills/a/SKILL.md")
	h.waitFor("component edit while broken", func(rs []watchRunRec, cs []Cycle) bool {
		return slices.Contains(watchLastRun(rs).trigger, want) && cs[len(cs)-1].Err != nil
	})
	h.writeFile("actant.cue", "dir: skills\n#fixed\n")
	h.waitConfig("dir: skills\n#fixed\n")
	_, cs := h.snapshot()
	if c := cs[len(cs)-1]; c.Err != nil || c.Summary == "" {
		t.Errorf("fixed cycle = %+v, want success with summary", c)
	}
}

func TestWatchBrokenFromStart(t *testing.T) {
	h := newWatchHarness(t)
	h.writeFile("actant.cue", "broken\n")
	h.start(0)
	_, cs := h.snapshot()
	if cs[0].Err == nil || !cs[0].Initial {
		t.Fatalf("initial cycle = %+v, want an error", cs[0])
	}
	h.writeFile("actant.cue", "ok\n")
	h.waitConfig("ok\n")
}

func TestWatchFollowsReferences(t *testing.T) {
	h := newWatchHarness(t)
	h.writeFile("actant.cue", "dir: compA\n")
	h.writeFile("compA/x.md", "a")
	h.writeFile("compB/x.md", "b")
	h.writeFile("prompts/p.md", "p")
	h.writeFile("prompts/other.md", "o")
	h.start(0)

	// compB is not referenced yet.
	h.writeFile("compB/x.md", "b1")
	h.writeFile("compA/x.md", "a1") // sentinel
	h.waitRuns("compA edit", func(rs []watchRunRec) bool {
		return slices.Contains(watchLastRun(rs).trigger, h.path("compA/x.md"))
	})
	if rs, _ := h.snapshot(); !slices.Equal(watchLastRun(rs).trigger, []string{h.path("compA/x.md")}) {
		t.Errorf("trigger = %q: unreferenced compB must not count", watchLastRun(rs).trigger)
	}

	// Switch the config to compB and a single prompt file.
	h.writeFile("actant.cue", "dir: compB\nfile: prompts/p.md\n")
	h.waitConfig("dir: compB\nfile: prompts/p.md\n")
	h.writeFile("compA/x.md", "a2")       // no longer referenced
	h.writeFile("prompts/other.md", "o2") // sibling of a watched single file
	h.writeFile("compB/x.md", "b2")       // sentinel
	h.waitRuns("compB edit", func(rs []watchRunRec) bool {
		return slices.Contains(watchLastRun(rs).trigger, h.path("compB/x.md"))
	})
	rs, _ := h.snapshot()
	if got := watchLastRun(rs).trigger; !slices.Equal(got, []string{h.path("compB/x.md")}) {
		t.Errorf("trigger = %q, want only compB/x.md", got)
	}
	// The single file, edited by rename.
	h.writeFile("prompts/.p.md.tmp", "p2")
	if err := os.Rename(h.path("prompts/.p.md.tmp"), h.path("prompts/p.md")); err != nil {
		t.Fatal(err)
	}
	h.waitRuns("prompt edit", func(rs []watchRunRec) bool {
		return slices.Contains(watchLastRun(rs).trigger, h.path("prompts/p.md"))
	})
	for _, r := range rs {
		for _, p := range r.trigger {
			if p == h.path("compA/x.md") && r.config != "dir: compA\n" {
				t.Errorf("unreferenced compA still triggers: %+v", r)
			}
		}
	}
}

// TestWatchMissingComponentAppears: a referenced directory that does not
// exist is an error; creating it (mkdir -p + file) applies.
func TestWatchMissingComponentAppears(t *testing.T) {
	h := newWatchHarness(t)
	h.writeFile("actant.cue", "dir: skills/new/one\n")
	h.start(0)
	_, cs := h.snapshot()
	if cs[0].Err == nil {
		t.Fatalf("initial cycle = %+v, want missing-component error", cs[0])
	}
	h.writeFile("skills/new/one/SKILL.md", "x")
	h.waitRuns("component appears", func(rs []watchRunRec) bool {
		r := watchLastRun(rs)
		return r.err == nil && slices.Contains(r.files, "skills/new/one/SKILL.md")
	})
	// And is watched from then on.
	rs, _ := h.snapshot()
	n := len(rs)
	h.writeFile("skills/new/one/SKILL.md", "y")
	h.waitRuns("edit after appearance", func(rs []watchRunRec) bool {
		return len(rs) > n && slices.Contains(watchLastRun(rs).trigger, h.path("skills/new/one/SKILL.md"))
	})
}

func TestWatchCueModAppears(t *testing.T) {
	h := newWatchHarness(t)
	h.start(0)
	h.writeFile("cue.mod/module.cue", "module: \"x\"")
	h.waitRuns("cue.mod picked up", func(rs []watchRunRec) bool {
		return slices.Contains(watchLastRun(rs).trigger, h.path("cue.mod/module.cue"))
	})
}

func TestWatchPollers(t *testing.T) {
	h := newWatchHarness(t)
	var calls atomic.Int32
	h.pollers = []Poller{{
		Name:     "hub",
		Interval: 5 * time.Millisecond,
		Poll: func(ctx context.Context) (bool, error) {
			h.enter()
			defer h.leave()
			switch calls.Add(1) {
			case 1:
				return false, errors.New("network down")
			case 2:
				return false, nil
			case 3:
				return true, nil
			}
			return false, nil
		},
	}, {Name: "manual", Interval: 0, Poll: func(context.Context) (bool, error) {
		t.Error("a poller without interval was polled")
		return false, nil
	}}}
	h.start(0)
	h.waitFor("poll failure reported, then a moved source applied", func(rs []watchRunRec, cs []Cycle) bool {
		return slices.ContainsFunc(cs, func(c Cycle) bool { return c.Kind == CyclePoll }) &&
			slices.ContainsFunc(rs, func(r watchRunRec) bool { return slices.Equal(r.trigger, []string{"hub:hub"}) })
	})
	_, cs := h.snapshot()
	i := slices.IndexFunc(cs, func(c Cycle) bool { return c.Kind == CyclePoll })
	if c := cs[i]; c.Poller != "hub" || !strings.Contains(c.Err.Error(), "network down") {
		t.Errorf("poll report = %+v", c)
	}
	if n := watchCountKind(cs, CyclePoll); n != 1 {
		t.Errorf("%d poll failures reported, want 1", n)
	}
}

func TestWatchCancelWaitsForRun(t *testing.T) {
	h := newWatchHarness(t)
	h.entered = make(chan int, 10)
	h.start(0)
	<-h.entered
	h.mu.Lock()
	h.block = make(chan struct{}) // never released: the run must honour ctx
	h.mu.Unlock()
	h.writeFile("actant.cue", "v1\n")
	select {
	case <-h.entered:
	case <-time.After(watchDeadline):
		t.Fatal("no run")
	}
	h.cancel()
	h.cancel = nil
	select {
	case err := <-h.done:
		if err != nil {
			t.Fatalf("Watch returned %v, want nil", err)
		}
	case <-time.After(watchDeadline):
		t.Fatal("Watch did not return")
	}
	if n := h.active.Load(); n != 0 {
		t.Error("Watch returned while Run was still in flight")
	}
	_, cs := h.snapshot()
	if len(cs) != 1 {
		t.Errorf("abandoned run was reported: %+v", cs)
	}
}

func TestWatchRunPanicIsReported(t *testing.T) {
	var n atomic.Int32
	root := t.TempDir()
	cfg := filepath.Join(root, "actant.cue")
	if err := os.WriteFile(cfg, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reports := make(chan Cycle, 10)
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, Options{
			Base: Spec{Files: []string{cfg}},
			Run: func(context.Context, []string) (Result, error) {
				if n.Add(1) == 1 {
					panic("boom")
				}
				return Result{Summary: "no changes"}, nil
			},
			Report: func(c Cycle) { reports <- c },
		})
	}()
	if c := <-reports; c.Err == nil || !strings.Contains(c.Err.Error(), "boom") {
		t.Fatalf("first cycle = %+v, want the panic as error", c)
	}
	if err := os.WriteFile(cfg, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-reports:
		if c.Err != nil || c.Summary != "no changes" {
			t.Fatalf("second cycle = %+v", c)
		}
	case <-time.After(watchDeadline):
		t.Fatal("watch died after a panic")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestWatchNeedsRun(t *testing.T) {
	if err := Watch(context.Background(), Options{}); err == nil {
		t.Fatal("Watch without Run must fail")
	}
}

func TestWatchIgnoredNames(t *testing.T) {
	for name, want := range map[string]bool{
		".actant.cue.swp": true, ".actant.cue.swo": true, ".x.swx": true, "actant.cue~": true,
		"4913": true, ".#actant.cue": true, "#actant.cue#": true, ".actctl-tmp-abc": true,
		"a.md___jb_tmp___": true, "a.md.kate-swp": true,
		"actant.cue": false, "SKILL.md": false, "#": false, "swp": false, "a.swz": false, "49130": false,
	} {
		if got := watchIgnoredName(name); got != want {
			t.Errorf("watchIgnoredName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestWatchMatcher(t *testing.T) {
	m := newWatchMatcher(Spec{
		Dirs:     []string{"/w/skills/a"},
		Files:    []string{"/w/prompts/p.md"},
		Patterns: map[string][]string{"/w": {"*.cue"}},
	}.normalize())
	for p, want := range map[string]bool{
		"/w/actant.cue":           true,
		"/w/actant.lock":          false,
		"/w/.actant.cue.swp":      false,
		"/w/skills":               true, // ancestor of a target: mv skills elsewhere
		"/w/skills/a":             true,
		"/w/skills/b":             false,
		"/w/skills/a/x/y.md":      true,
		"/w/skills/a/.git/HEAD":   false,
		"/w/skills/a/.git":        false,
		"/w/skills/a/.actant/s":   false,
		"/w/skills/a/x/.x.md.swp": false,
		"/w/prompts/p.md":         true,
		"/w/prompts/q.md":         false,
		"/w/prompts":              true,
		"/w/sub/x.cue":            false,
	} {
		if got := m.relevant(p); got != want {
			t.Errorf("relevant(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestWatchSpecUnion(t *testing.T) {
	a := Spec{Dirs: []string{"/b", "/a"}, Patterns: map[string][]string{"/r": {"*.cue"}}}.normalize()
	b := Spec{Dirs: []string{"/a/../a"}, Files: []string{"/f"}, Patterns: map[string][]string{"/r/": {"*.cue", "x"}}}
	u := a.union(b)
	want := Spec{Dirs: []string{"/a", "/b"}, Files: []string{"/f"}, Patterns: map[string][]string{"/r": {"*.cue", "x"}}}
	if !u.equal(want) {
		t.Errorf("union = %+v, want %+v", u, want)
	}
	if u.equal(a) {
		t.Error("different specs compare equal")
	}
}

func TestWatchCycleJSON(t *testing.T) {
	c := Cycle{Kind: CycleApply, Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Duration: 9 * time.Millisecond,
		Trigger: []string{"/w/actant.cue"}, Summary: "applied: 2 changed, 0 pruned in 9ms",
		JSON: map[string]int{"changed": 2}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"kind":"apply","initial":false,"time":"2026-01-02T03:04:05Z","durationMs":9,"trigger":["/w/actant.cue"],"ok":true,"summary":"applied: 2 changed, 0 pruned in 9ms","result":{"changed":2}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(Cycle{Kind: CyclePoll, Poller: "hub", Err: errors.New("down")})
	if !strings.Contains(string(b), `"ok":false,"error":"down","summary":"poll failed"`) || !strings.Contains(string(b), `"trigger":[]`) {
		t.Errorf("error cycle JSON = %s", b)
	}
}

// TestWatchDebounceCoalesces: events inside the quiet window make one run
// with every changed path. The window is long (1s) so that the writes below
// fall inside it on any machine; nothing is measured.
func TestWatchDebounceCoalesces(t *testing.T) {
	h := newWatchHarness(t)
	h.start(time.Second)
	// cue.mod itself counts: it is a watched target that appeared.
	want := []string{h.path("a.cue"), h.path("actant.cue"), h.path("b.cue"), h.path("cue.mod"), h.path("cue.mod/module.cue")}
	h.writeFile("b.cue", "b")
	h.writeFile("actant.cue", "v1\n")
	h.writeFile("cue.mod/module.cue", "m")
	h.writeFile("a.cue", "a")
	h.waitConfig("v1\n")
	rs, _ := h.snapshot()
	if len(rs) != 2 {
		t.Fatalf("%d runs, want 2 (initial + one for the whole window): %+v", len(rs), rs)
	}
	if !slices.Equal(rs[1].trigger, want) {
		t.Errorf("trigger = %q, want %q", rs[1].trigger, want)
	}
}

// TestWatchRemovesUnreferencedWatches checks the watch list itself: paths
// the config stops referencing lose their watches (inotify watches are a
// limited per-user resource), new ones gain them, missing ones are covered
// by their nearest existing ancestor.
func TestWatchRemovesUnreferencedWatches(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"a/x", "a/.git/objects", "b", "p"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fsw.Close()
	w := &watcher{fsw: fsw, watched: map[string]bool{}, fps: map[string]watchFingerprint{}, pending: map[string]bool{}, warned: map[string]bool{}}
	list := func() []string {
		l := fsw.WatchList()
		for i := range l {
			l[i], _ = filepath.Rel(root, l[i])
		}
		slices.Sort(l)
		return l
	}
	j := func(p string) string { return filepath.Join(root, p) }

	w.setSpec(Spec{Dirs: []string{j("a")}, Patterns: map[string][]string{root: {"*.cue"}}}.normalize(), time.Time{})
	if got, want := list(), []string{".", "a", "a/x"}; !slices.Equal(got, want) {
		t.Errorf("watches = %q, want %q", got, want)
	}
	w.setSpec(Spec{Dirs: []string{j("b"), j("missing/deep")}, Files: []string{j("p/f.md")}}.normalize(), time.Time{})
	if got, want := list(), []string{".", "b", "p"}; !slices.Equal(got, want) {
		t.Errorf("watches = %q, want %q", got, want)
	}
	w.setSpec(Spec{Files: []string{j("p/f.md")}}.normalize(), time.Time{})
	if got, want := list(), []string{"p"}; !slices.Equal(got, want) {
		t.Errorf("watches = %q, want %q", got, want)
	}
}

// TestWatchRunsAgain: a run's Result.Again runs it once more that long
// after, on the watch's clock, triggered by TriggerAgain; a Silent run
// is not reported.
func TestWatchRunsAgain(t *testing.T) {
	clk := clock.NewFake(time.Now())
	triggers := make(chan []string, 4)
	reported := make(chan Cycle, 4)
	n := 0
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, Options{Base: Workspace(t.TempDir()), Clock: clk, Report: func(c Cycle) { reported <- c },
			Run: func(_ context.Context, trigger []string) (Result, error) {
				n++
				triggers <- trigger
				return Result{Again: time.Duration(2-n) * time.Second, Silent: n == 2}, nil
			}})
	}()
	<-triggers
	<-reported // the first run
	armed := make(chan struct{})
	go func() { clk.WaitPending(1); close(armed) }()
	if _, ok := testutil.Within(armed); !ok {
		t.Fatal("no run again armed")
	}
	clk.Advance(time.Second)
	if got, ok := testutil.Within(triggers); !ok || !slices.Equal(got, []string{TriggerAgain}) {
		t.Fatalf("run again: trigger %q (%v)", got, ok)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-reported:
		t.Errorf("a silent run was reported: %+v", c)
	default:
	}
}
