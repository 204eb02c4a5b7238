package reconcile

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// Options steer Apply, Diff and Status.
type Options struct {
	// DryRun computes and reports the plan without writing (and without
	// taking the lock).
	DryRun bool
	// Force overwrites hand edits of managed entries, backing them up.
	Force bool
	// NoPrune keeps agents that were removed from the config.
	NoPrune bool
	// Only limits the run to these agents (declared or recorded).
	Only []string
	// Scoped, with Only, renders and reads only the Only agents and the
	// agents in their directories (the only ones whose files they can
	// share), not the whole workspace: one agent's Status or Diff (its
	// dashboard page, describe) costs that agent, not the team. Status
	// then reports the Only agents alone.
	Scoped bool
	// LockWait bounds the wait for another apply (DefaultLockWait if 0).
	LockWait time.Duration
	// LockDigest is recorded in the state (digest of actant.lock).
	LockDigest string
	// Now is the clock for backup names (time.Now when nil).
	Now func() time.Time
	// crash, set only by tests, is the executor's crash hook (see
	// executor.crash).
	crash func(step string) bool
}

// Item is one line of a Result: a file change or a finding.
type Item struct {
	Path   string   `json:"path"`
	Action Action   `json:"action"`
	Agents []string `json:"agents,omitempty"`
	Policy string   `json:"policy,omitempty"`
	Reason string   `json:"reason,omitempty"`
	Backup string   `json:"backup,omitempty"`
	// Source: a drifted block whose text is one prompt of the config names
	// that prompt's path (prompts."NAME".content; docs/json.md).
	Source string `json:"source,omitempty"`
}

// Counts summarise a Result.
type Counts struct {
	// Changed is the number of files (and directories) created, updated,
	// deleted or restored.
	Changed   int `json:"changed"`
	Created   int `json:"created"`
	Updated   int `json:"updated"`
	Deleted   int `json:"deleted"`
	Restored  int `json:"restored"`
	Skipped   int `json:"skipped"`
	Drifted   int `json:"drifted"`
	Conflicts int `json:"conflicts"`
	Warnings  int `json:"warnings"`
	// Pruned is the number of agents removed.
	Pruned int `json:"pruned"`
}

// Result is what Apply did (or, with DryRun, would do). Its JSON form is
// the stable output of `actctl apply -o json`.
type Result struct {
	Root         string        `json:"root"`
	DryRun       bool          `json:"dryRun"`
	Items        []Item        `json:"actions"`
	Counts       Counts        `json:"counts"`
	Pruned       []string      `json:"pruned,omitempty"`
	StateWritten bool          `json:"stateWritten"`
	Recovered    bool          `json:"recovered,omitempty"`
	Duration     time.Duration `json:"-"`
	DurationMS   float64       `json:"durationMs"`
	// Hub is the part of Duration spent making hub sources available
	// (resolving and fetching), when the network was used; see Since.
	Hub   time.Duration `json:"-"`
	HubMS float64       `json:"hubMs,omitempty"`
	// Warnings are the renderer's warnings (not per file).
	Warnings []string `json:"warnings,omitempty"`
	// Notes say what the user must do before a tool reads the files this
	// run wrote (trust gates), each once; empty on a dry run.
	Notes []string `json:"notes,omitempty"`
	// Distrusted: a record of the workspace (the state, the journal) was
	// ignored, and said among Warnings: the next run, finding the record
	// this one wrote, will not say it again (so it is not one of the
	// warnings the inputs alone cause).
	Distrusted bool `json:"-"`
	// brief: see Brief.
	brief map[string]briefNote
	left  leftState
	// lockUpdated: see LockUpdated.
	lockUpdated bool
	// prunedDirs: see PrunedDir.
	prunedDirs map[string]string
}

// Brief is note (one of Notes) as a person reads it, and whether to say it
// at all: a note about more than a few files names the first ones and how
// many more there are, and of many notes that differ only in their
// workspace the first stands for the rest (Notes, which -o json prints,
// has them all). Any other note is returned as it is.
func (r *Result) Brief(note string) (string, bool) {
	if b, ok := r.brief[note]; ok {
		return b.text, !b.hidden
	}
	return note, true
}

// Summary is the one-line report: "applied: 2 changed, 0 pruned in 9ms",
// or "no changes" (watch mode prints it per cycle) when nothing was
// written and nothing is left different: a rewritten actant.lock or a
// drifted file kept is said instead.
func (r *Result) Summary() string {
	hub := ""
	if r.Hub > 0 {
		hub = fmt.Sprintf(" (hub fetch %s)", roundDuration(r.Hub))
	}
	if r.Counts.Changed == 0 && r.Counts.Pruned == 0 {
		prefix := ""
		if r.DryRun {
			prefix = "dry run: "
		}
		return prefix + r.unchanged() + hub
	}
	verb := "applied"
	if r.DryRun {
		verb = "dry run"
	}
	return fmt.Sprintf("%s: %d changed, %d pruned in %s%s", verb, r.Counts.Changed, r.Counts.Pruned, roundDuration(r.Duration), hub)
}

// unchanged is the summary of a run that changed no file of an agent:
// "no changes", unless it rewrote actant.lock or kept drifted files.
func (r *Result) unchanged() string {
	var parts []string
	if r.lockUpdated {
		parts = append(parts, "actant.lock updated")
	}
	switch n := r.Counts.Drifted; {
	case n == 1:
		parts = append(parts, "1 drifted file kept (apply --force overwrites it, with a backup)")
	case n > 1:
		parts = append(parts, fmt.Sprintf("%d drifted files kept (apply --force overwrites them, with a backup)", n))
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return "no agent file changed; " + strings.Join(parts, "; ")
}

// LockUpdated records that the command rewrote actant.lock before the
// run (hub.Report.LockChanged), for Summary.
func (r *Result) LockUpdated(updated bool) { r.lockUpdated = updated }

// Since makes the result's duration the time since start, when a command
// did more than Apply before it (loading the config, fetching hub
// sources), and records hub, the part of it spent on the network (zero:
// none). A hub clone is no longer left out of the time apply reports
// (docs/json.md, apply).
func (r *Result) Since(start time.Time, hub time.Duration) {
	r.Duration = time.Since(start)
	r.DurationMS = ms(r.Duration)
	r.Hub, r.HubMS = hub, ms(hub)
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

// ConflictError is returned when the plan has conflicts; nothing was
// written. It lists every conflicting file with its agent and policy.
type ConflictError struct{ Conflicts []Note }

func (e *ConflictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d conflict(s); nothing was written:", len(e.Conflicts))
	for _, n := range e.Conflicts {
		fmt.Fprintf(&b, "\n  %s: ", n.Rel)
		if n.Agent != "" {
			fmt.Fprintf(&b, "agent %s", n.Agent)
			if n.Policy != "" {
				fmt.Fprintf(&b, " (workDirConflict=%s)", n.Policy)
			}
			b.WriteString(": ")
		}
		b.WriteString(n.Reason)
	}
	return b.String()
}

// Apply reconciles the workspace of cfg: lock, prepare (hub sync), render,
// snapshot, plan, and — unless DryRun or a conflict — execute. On a
// conflict the Result is returned with a *ConflictError.
func Apply(ctx context.Context, cfg *schema.Config, o Options) (*Result, error) {
	start := time.Now()
	if !o.DryRun {
		l, err := Lock(ctx, cfg.Root, o.LockWait)
		if err != nil {
			return nil, fmt.Errorf("apply: %w", err)
		}
		defer l.release(cfg.Root)
	}
	run, err := prepareRun(cfg, o)
	if err != nil {
		return nil, err
	}
	res := run.result(o.DryRun)
	if c := run.plan.Conflicts(); len(c) > 0 {
		res.Duration = time.Since(start)
		res.DurationMS = ms(res.Duration)
		return res, &ConflictError{Conflicts: c}
	}
	if !o.DryRun {
		written, err := run.execute(ctx)
		if err != nil {
			return nil, err
		}
		res.StateWritten = written
		res.leave(run, written)
		res.raced(run.plan.Raced)
	}
	res.Duration = time.Since(start)
	res.DurationMS = ms(res.Duration)
	return res, nil
}

// onlyLockAndEmptyBackup reports whether .actant holds nothing but the
// lock, an empty backup directory, the record of the last apply's inputs
// and the config cache (package inputs), and the runtime directory: then
// nothing of the apply's is left. The runtime directory is the running
// processes' (a run's ledger, an up's socket), removed by them when they
// end (docs/runtime.md, "No orphans"); the lock is not theirs.
func onlyLockAndEmptyBackup(root string, entries []os.DirEntry) bool {
	for _, e := range entries {
		switch {
		case e.Name() == LockFile, e.Name() == layout.Inputs, e.Name() == layout.ConfigCache:
		case e.Name() == layout.Run && e.IsDir():
		case e.Name() == BackupDir && e.IsDir():
			if !emptyTree(filepath.Join(root, MetaDir, BackupDir)) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// execute carries out the plan of r (under the workspace lock): the temp
// files a killed apply left are removed first, then the executor.
func (r *run) execute(ctx context.Context) (bool, error) {
	if err := interrupted(ctx, "nothing was written"); err != nil {
		return false, err
	}
	root := r.cfg.Root
	if r.recovering {
		if err := cleanTemps(r.snap, root); err != nil {
			return false, fmt.Errorf("apply: %w", err)
		}
	} else if _, err := atomicfile.CleanTemps(filepath.Join(root, MetaDir)); err != nil {
		// A run killed while writing its journal (or a state without a
		// journal) leaves a temp file in .actant and nothing else.
		return false, fmt.Errorf("apply: %w", err)
	}
	x := &executor{ctx: ctx, p: r.plan, oldState: r.stateData, recovering: r.recovering, crash: r.crash}
	if home := r.cfg.Home; home != "" {
		x.makeKey = func() []byte { return RecordKey(home, true) }
	}
	return x.run()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// run is one computed plan with its inputs.
type run struct {
	cfg        *schema.Config
	targets    []*materialize.Target
	warnings   []string
	snap       *Snapshot
	state      *State
	stateData  []byte
	recovering bool
	plan       *Plan
	// owned is the committed record read from actant.owned.
	owned *ownedRecord
	// crash is Options.crash.
	crash func(step string) bool
	// others are the agents a scoped run left out (Options.Scoped):
	// known names all the same, which an unknown one is compared with.
	others []string
	// key seals the state and the journal written (nil: unsealed).
	key []byte
	// distrusted: a record was ignored (Result.Distrusted).
	distrusted bool
}

// prepareRun does everything before the first write: render, read state (recovering a killed run), snapshot and plan.
func prepareRun(cfg *schema.Config, o Options) (*run, error) {
	// The recorded state (and a killed run's journal) is read and decoded
	// while the targets render: neither depends on the other.
	// Only records this user's actctl sealed are trusted (records.go);
	// a missing key is made when there is something to write.
	key := RecordKey(cfg.Home, false)
	type recorded struct {
		st, pending *State
		data        []byte
		owned       *ownedRecord
		ignored     []string
		err         error
	}
	stateCh := make(chan recorded, 1)
	go func() {
		var rec recorded
		tracked := MetaTracked(cfg.Root)
		var why string
		rec.st, rec.data, why, rec.err = readTrusted(cfg.Root, StateFile, key, tracked)
		rec.ignored = appendNonEmpty(rec.ignored, why)
		if rec.st == nil {
			rec.st = NewState()
		}
		pendingOwned := ""
		if rec.err == nil {
			rec.pending, _, why, rec.err = readTrusted(cfg.Root, PendingFile, key, tracked)
			rec.ignored = appendNonEmpty(rec.ignored, why)
			if rec.pending != nil {
				pendingOwned = rec.pending.Owned
			}
		}
		if rec.err == nil {
			rec.owned, rec.err = readOwned(cfg.Root, rec.st.Owned, pendingOwned)
		}
		stateCh <- rec
	}()
	var scope, others []string // the declared agents a scoped run renders; the rest
	if o.Scoped && len(o.Only) > 0 {
		scope = Scope(cfg, o.Only)
	}
	targets, diags := renderTargets(cfg, scope, o.Scoped && len(o.Only) > 0)
	deployed, derr := deployTargets(cfg)
	rec := <-stateCh
	if o.Scoped && len(o.Only) > 0 {
		in := map[string]bool{}
		for _, n := range append(scope, o.Only...) {
			in[n] = true
		}
		deployed = slices.DeleteFunc(deployed, func(t *materialize.Target) bool { return !in[t.Agent] })
		others = othersThan(in, cfg, rec.st, rec.pending)
		rec.st, rec.pending = rec.st.scoped(in), rec.pending.scoped(in)
	}
	if rendered != nil {
		rendered(targets, rec.st)
	}
	if errs := diags.Errors(); len(errs) > 0 {
		return nil, errs
	}
	if derr != nil {
		return nil, derr
	}
	targets = append(targets, deployed...)
	r := &run{cfg: cfg, targets: targets, crash: o.crash, key: key, others: others}
	r.warnings, r.distrusted = rec.ignored, len(rec.ignored) > 0
	for _, d := range diags {
		if d.Warning {
			r.warnings = append(r.warnings, d.String())
		}
	}
	if rec.err != nil {
		return nil, rec.err
	}
	for _, st := range []*State{rec.st, rec.pending} {
		if st != nil && st.Root != "" && st.Root != cfg.Root {
			return nil, fmt.Errorf("%s was written for the workspace %s, not %s: this directory was copied or moved, and the recorded agents' files live there; remove %s to start afresh here (files already exactly right are adopted), or run actctl in %s",
				metaPath(cfg.Root, StateFile), st.Root, cfg.Root, filepath.Join(cfg.Root, MetaDir), st.Root)
		}
	}
	r.owned = rec.owned
	if err := r.makePlan(rec.st, rec.data, rec.pending, o); err != nil {
		return nil, err
	}
	r.plan.Notes = append(r.plan.Notes, shapeNotes(cfg, r.plan.Ops)...)
	return r, nil
}

// unknownOnly is the error for an agent named on the command line (apply,
// diff, status) that is neither declared nor applied, with the name it
// may have meant; it names no command, as every one of them reports it.
func unknownOnly(name string, known map[string]bool) error {
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	sort.Strings(names)
	return schema.UnknownAgent(name, names)
}

// makePlan snapshots the disk for r's targets and the recorded state st
// (data its bytes), merges the journal of a killed apply (pending, nil
// when there is none) and plans.
func (r *run) makePlan(st *State, data []byte, pending *State, o Options) error {
	cfg, targets := r.cfg, r.targets
	if len(o.Only) > 0 {
		known := map[string]bool{}
		for _, t := range targets {
			known[t.Agent] = true
		}
		for n := range st.Agents {
			known[n] = true
		}
		for _, n := range r.others {
			known[n] = true
		}
		if pending != nil {
			// An agent only a failed or killed run's journal holds
			// (a copy whose first apply failed) can be pruned by name.
			for n := range pending.Agents {
				known[n] = true
			}
		}
		for _, n := range o.Only {
			if !known[n] {
				return unknownOnly(n, known)
			}
		}
	}
	if r.owned == nil {
		var err error
		if r.owned, err = readOwned(cfg.Root); err != nil {
			return err
		}
	}
	owned := r.owned.absolute(cfg.Root)
	snap, err := TakeSnapshot(cfg.Root, targets, st, pending, owned)
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	foreign := r.owned.foreign(st, pending)
	var orphans []string
	if pending != nil {
		st, orphans = recoverState(st, pending, snap)
		r.recovering = true
		if !foreign {
			// The record on disk is this machine's (the killed run's
			// or the one before): the recovered state goes with it.
			st.Owned = r.owned.sum
		}
	}
	// This machine's record (what state.json will be compared with),
	// then the committed one merged in when it came from elsewhere: what
	// the plan knows as actctl's.
	local := st
	var unknown []string
	if foreign {
		declared := map[string]bool{}
		for _, t := range targets {
			declared[t.Agent] = true
		}
		st, unknown = mergeOwned(st, owned, func(n string) bool { return declared[n] })
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	plan, err := MakePlan(cfg.Root, targets, snap, st, PlanOptions{
		Force: o.Force, NoPrune: o.NoPrune, Only: o.Only, LockDigest: o.LockDigest,
		Stamp:  now().UTC().Format("20060102T150405.000000000Z"),
		AtHead: headChecker(cfg.Root),
		Where:  cfg.Where,
	})
	if err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	plan.notUnknown(unknown)
	plan.prev = st
	for n, a := range cfg.Agents {
		if a.Adhoc {
			if plan.localAgents == nil {
				plan.localAgents = map[string]bool{}
			}
			plan.localAgents[n] = true
		}
	}
	plan.setOwned(r.owned)
	if st != local {
		plan.stateSame = equalStates(plan.State, local)
	} else {
		plan.stateSame = plan.stateSame && plan.State.Owned == local.Owned
	}
	if r.recovering {
		// What the disk holds now, as far as the old state and the
		// journal tell: Execute records it before this run's journal
		// replaces the killed run's (see Plan.recovered).
		plan.recovered, plan.orphans = st, orphans
	}
	plan.key = r.key
	r.snap, r.state, r.stateData, r.plan = snap, st, data, plan
	return nil
}

// appendNonEmpty appends s to list unless it is empty.
func appendNonEmpty(list []string, s string) []string {
	if s == "" {
		return list
	}
	return append(list, s)
}

func (r *run) result(dry bool) *Result {
	res := &Result{Root: r.cfg.Root, DryRun: dry, Pruned: r.plan.Pruned, Warnings: r.warnings, Recovered: r.recovering, Distrusted: r.distrusted}
	res.Counts.Pruned = len(r.plan.Pruned)
	ops := r.plan.Ops
	if len(r.plan.Conflicts()) > 0 {
		// Nothing is written: no file changes, no agent pruned; the
		// findings (the conflicts first of all) are the result.
		ops, res.Pruned, res.Counts.Pruned = nil, nil, 0
	}
	res.prunedDirs = r.prunedDirs(res.Pruned)
	for _, op := range ops {
		res.Items = append(res.Items, Item{Path: op.Rel, Action: op.Action, Agents: op.Agents, Reason: op.Reason, Backup: op.BackupTo})
		res.Counts.Changed++
		switch op.Action {
		case ActCreate:
			res.Counts.Created++
		case ActUpdate:
			res.Counts.Updated++
		case ActDelete:
			res.Counts.Deleted++
		case ActRestore:
			res.Counts.Restored++
		}
	}
	for _, n := range r.plan.Notes {
		it := Item{Path: n.Rel, Action: n.Action, Policy: n.Policy, Reason: n.Reason, Source: n.Source}
		if n.Agent != "" {
			it.Agents = []string{n.Agent}
		}
		res.Items = append(res.Items, it)
		switch n.Action {
		case ActSkip:
			res.Counts.Skipped++
		case ActDrift:
			res.Counts.Drifted++
		case ActConflict:
			res.Counts.Conflicts++
		case ActWarning:
			res.Counts.Warnings++
		}
	}
	sort.SliceStable(res.Items, func(i, j int) bool { return res.Items[i].Path < res.Items[j].Path })
	res.Counts.Warnings += len(res.Warnings) // the count covers the list too (docs/json.md)
	if !dry {
		res.Notes, res.brief = trustNotes(r.targets, r.plan.Ops)
	}
	return res
}

// raced turns the items of ops that Execute left alone (their file was
// edited while apply ran) into drift findings.
func (r *Result) raced(ops []*Op) {
	for _, op := range ops {
		for i := range r.Items {
			it := &r.Items[i]
			if it.Path != op.Rel || it.Action != op.Action {
				continue
			}
			r.Counts.Changed--
			switch op.Action {
			case ActCreate:
				r.Counts.Created--
			case ActUpdate:
				r.Counts.Updated--
			case ActDelete:
				r.Counts.Deleted--
			case ActRestore:
				r.Counts.Restored--
			}
			r.Counts.Drifted++
			it.Action, it.Backup = ActDrift, ""
			it.Reason = "edited while apply ran; left as it is (apply again to reconcile it)"
			break
		}
	}
}

// FileDiff is the change apply would make to one file.
type FileDiff struct {
	Path   string `json:"path"`
	Action Action `json:"action"`
	// Unified is the unified diff (empty for a directory).
	Unified string `json:"diff"`
	// Drift: the file holds a hand edit of what actctl manages, which
	// apply keeps; Unified is what apply --force would write instead
	// (docs/json.md).
	Drift bool `json:"drift,omitempty"`
}

// Diff reports, as unified diffs, every file apply would change, and
// every file holding a hand edit (drift) as the diff of what apply
// --force would restore (FileDiff.Drift). It takes no lock and writes
// nothing.
func Diff(cfg *schema.Config, o Options) ([]FileDiff, *Result, error) {
	o.DryRun = true
	r, err := prepareRun(cfg, o)
	if err != nil {
		return nil, nil, err
	}
	res := r.result(true)
	var out []FileDiff
	for _, op := range r.plan.Ops {
		out = append(out, fileDiff(op))
	}
	if c := r.plan.Conflicts(); len(c) > 0 {
		return out, res, &ConflictError{Conflicts: c}
	}
	if res.Counts.Drifted > 0 {
		if out, err = withDrift(cfg, o, r.plan, out); err != nil {
			return nil, nil, err
		}
	}
	return out, res, nil
}

// fileDiff is the unified diff of one op.
func fileDiff(op *Op) FileDiff {
	fd := FileDiff{Path: op.Rel, Action: op.Action}
	if !op.Dir {
		oldLabel, newLabel := diffLabel("a", op.Rel), diffLabel("b", op.Rel)
		if !op.Exists {
			oldLabel = "/dev/null"
		}
		if op.Action == ActDelete {
			newLabel = "/dev/null"
		}
		fd.Unified = modeHeader(op) + udiff.Unified(oldLabel, newLabel, string(op.Old), string(op.Data))
	}
	return fd
}

// diffLabel is side ("a" or "b") joined to the path rel as git diff
// --no-index joins them: a/CLAUDE.md for a relative path, a/tmp/x (one
// slash) for the absolute /tmp/x.
func diffLabel(side, rel string) string {
	return side + "/" + strings.TrimPrefix(filepath.ToSlash(rel), "/")
}

// withDrift replaces or adds, in out, the diff of every file plan found
// drifted by the diff the same plan with --force makes of it: what apply
// --force would restore. Files in path order.
func withDrift(cfg *schema.Config, o Options, plan *Plan, out []FileDiff) ([]FileDiff, error) {
	drifted := map[string]bool{}
	for _, n := range plan.Notes {
		if n.Action == ActDrift {
			drifted[n.Rel] = true
		}
	}
	o.Force = true
	forced, err := prepareRun(cfg, o)
	if err != nil {
		return nil, err
	}
	at := map[string]int{}
	for i, fd := range out {
		at[fd.Path] = i
	}
	for _, op := range forced.plan.Ops {
		if !drifted[op.Rel] {
			continue
		}
		fd := fileDiff(op)
		fd.Drift = true
		if i, ok := at[op.Rel]; ok {
			out[i] = fd
		} else {
			out = append(out, fd)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// Agent statuses.
const (
	Synced    = "Synced"
	OutOfSync = "OutOfSync"
	Missing   = "Missing"
)

// AgentStatus is one agent's line in `actctl status`.
type AgentStatus struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Dir    string `json:"dir"`
	// Details say what is out of sync: drifted entries, pending changes.
	Details []string `json:"details,omitempty"`
}

// Status compares every agent's desired files with the disk and the state.
func Status(cfg *schema.Config, o Options) ([]AgentStatus, error) {
	o.DryRun, o.Force = true, false
	r, err := prepareRun(cfg, o)
	if err != nil {
		return nil, err
	}
	byName := map[string]*AgentStatus{}
	var names []string
	for _, t := range r.targets {
		s := &AgentStatus{Name: t.Agent, Status: Synced, Dir: t.Dir}
		if _, ok := r.state.Agents[t.Agent]; !ok {
			s.Status = Missing
			s.Details = append(s.Details, "never applied")
		}
		byName[t.Agent] = s
		names = append(names, t.Agent)
	}
	for n, a := range r.state.Agents {
		if _, ok := byName[n]; !ok {
			byName[n] = &AgentStatus{Name: n, Status: OutOfSync, Dir: a.Dir, Details: []string{"removed from the config; apply prunes it"}}
			names = append(names, n)
		}
	}
	mark := func(agent, detail string) {
		s := byName[agent]
		if s == nil {
			return
		}
		if s.Status == Synced {
			s.Status = OutOfSync
		}
		// A never-applied agent lists what apply would create too, as
		// an OutOfSync one does (issue #22 item 15).
		s.Details = append(s.Details, detail)
	}
	for _, op := range r.plan.Ops {
		for _, a := range op.Agents {
			mark(a, fmt.Sprintf("%s %s", op.Action, op.Rel))
		}
	}
	for _, n := range r.plan.Notes {
		if n.Agent != "" {
			mark(n.Agent, fmt.Sprintf("%s %s: %s", n.Action, n.Rel, n.Reason))
		}
	}
	sort.Strings(names)
	out := make([]AgentStatus, 0, len(names))
	for _, n := range names {
		if o.Scoped && len(o.Only) > 0 && !slices.Contains(o.Only, n) {
			continue // not rendered: its status is not known
		}
		out = append(out, *byName[n])
	}
	return out, nil
}

// rendered, set only by tests, sees the targets each run rendered and
// the recorded state it reads the files of.
var rendered func([]*materialize.Target, *State)

// renderTargets renders the agents of a run: every declared one, or
// when scoped those of scope (Options.Scoped).
func renderTargets(cfg *schema.Config, scope []string, scoped bool) ([]*materialize.Target, schema.Diagnostics) {
	mo := materialize.Options{IsTracked: gitTracked(cfg), UserText: userText}
	if scoped {
		return materialize.RenderAgents(cfg, scope, mo)
	}
	return materialize.RenderAll(cfg, mo)
}

// othersThan are the agents declared in cfg or recorded in states that
// are not in in.
func othersThan(in map[string]bool, cfg *schema.Config, states ...*State) []string {
	var out []string
	add := func(n string) {
		if !in[n] {
			out = append(out, n)
		}
	}
	for n := range cfg.Agents {
		add(n)
	}
	for _, st := range states {
		if st != nil {
			for n := range st.Agents {
				add(n)
			}
		}
	}
	return out
}

// scoped is st with the agents in alone (nil for nil): a scoped run
// reads and plans only their files.
func (st *State) scoped(in map[string]bool) *State {
	if st == nil {
		return nil
	}
	out := *st
	out.Agents = map[string]*AgentState{}
	for n, a := range st.Agents {
		if in[n] {
			out.Agents[n] = a
		}
	}
	return &out
}

// Scope is the declared agents of only and every declared agent whose
// directory (symlinks resolved) is one of theirs, in name order: agents
// share files (a .gitignore block, skill copies) only within a
// directory.
func Scope(cfg *schema.Config, only []string) []string {
	dirOf := func(n string) string {
		r, err := cfg.Resolve(n)
		if err != nil {
			return ""
		}
		if d, err := filepath.EvalSymlinks(r.Dir); err == nil {
			return d
		}
		return filepath.Clean(r.Dir)
	}
	dirs := map[string]bool{}
	for _, n := range only {
		if d := dirOf(n); d != "" {
			dirs[d] = true
		}
	}
	var out []string
	for _, n := range slices.Sorted(maps.Keys(cfg.Agents)) {
		if slices.Contains(only, n) || dirs[dirOf(n)] {
			out = append(out, n)
		}
	}
	return out
}
