package reconcile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/par"
)

// executor carries out one plan (Execute in docs/design.md) exactly, in
// the order that keeps every moment of it recoverable, one step after
// another, sharing what it holds:
//
//  1. journal: when the last apply was killed, the state recovered from
//     its journal (see Plan.recovered), before this run's journal
//     (.actant/state.pending.json: the state this run will record)
//     replaces that one, so a killed run is recognised and finished by
//     the next;
//  2. backups of the users' files about to be replaced;
//  3. directories: the missing ones, outermost first;
//  4. writes, in parallel, each temp file + fsync + rename, then each
//     directory written to (or made in step 3) fsynced once (syncDirs);
//  5. removals: deletions and restores, then the emptied directories
//     actctl made;
//  6. raced: files edited while this apply ran keep their records;
//  7. state: the committed record, then the state, last, and the journal
//     is removed.
//
// oldState is the raw state.json read before planning (the state given to
// MakePlan, unless recovering); the state is not rewritten when the plan
// records exactly what that state did (or its encoding has the same
// bytes), so a no-op apply writes nothing.
// It runs under the workspace lock, from the apply (run.execute), and
// stops at a safe point once ctx is cancelled: before anything is
// written, or after the writes under way, leaving the journal for the
// next apply (see ErrInterrupted).
type executor struct {
	ctx        context.Context
	p          *Plan
	oldState   []byte
	recovering bool
	// crash, set only by tests, is asked before each step that changes
	// the disk (named "journal", "write <path>", ...); when it returns
	// true the executor stops right there, leaving the disk as a kill -9
	// at that moment would, and returns errCrashed.
	//
	// The writes go through the same pool with crash set as without, one
	// worker wide: which write a kill interrupts in a wider pool depends
	// on scheduling, and a crash test must stop between two given writes,
	// repeatably. Every other step is sequential anyway.
	crash func(step string) bool

	// makeKey makes the key the records are sealed with, when the plan
	// has none and there is something to write (nil: none is made).
	makeKey func() []byte

	meta, pending, stateFile string
	// stateChanged: the state must be written (or removed, when empty).
	stateChanged, empty bool
	// backupDirs are the backup directories consumed backups may leave
	// empty.
	backupDirs []string
	// journalLeft: the state is recorded and only the journal's removal
	// failed.
	journalLeft bool
	// dirs are the directories whose entries the current step changed,
	// fsynced once each at the step's end (see syncDirs).
	dirs atomicfile.DirSyncs
}

var errCrashed = errors.New("apply: simulated crash")

func (x *executor) crashed(step string) bool { return x.crash != nil && x.crash(step) }

func (x *executor) run() (stateWritten bool, err error) {
	if !x.needed() {
		return false, nil
	}
	if x.p.key == nil && x.makeKey != nil {
		x.p.key, x.p.StateData = x.makeKey(), nil
	}
	if err := interrupted(x.ctx, "nothing was written"); err != nil {
		return false, err
	}
	x.meta = filepath.Join(x.p.Root, MetaDir)
	x.pending = filepath.Join(x.meta, PendingFile)
	x.stateFile = filepath.Join(x.meta, StateFile)
	if _, err := atomicfile.MkdirAll(x.meta); err != nil {
		return false, fmt.Errorf("apply: %w", err)
	}
	steps := []func() error{
		x.journal,
		x.backups,
		x.directories,
		x.writes,
		x.removals,
		x.raced,
		x.state,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return x.journalLeft && x.stateChanged, err
		}
	}
	return x.stateChanged, nil
}

// needed reports whether the plan changes anything. The state is
// unchanged when the plan records exactly what was read (compared as
// records, not as a re-encoding: a no-op apply does not encode the state
// at all), or, failing that, when its bytes are the same.
func (x *executor) needed() bool {
	p := x.p
	x.stateChanged = x.recovering || x.oldState == nil || (!p.stateSame && !bytes.Equal(p.StateBytes(), x.oldState))
	x.empty = len(p.State.Agents) == 0
	if x.empty {
		x.stateChanged = x.oldState != nil || x.recovering
	}
	return len(p.Ops) > 0 || len(p.RmDirs) > 0 || x.stateChanged || p.ownedChanged()
}

// journal records what this run will write before anything is written.
func (x *executor) journal() error {
	p := x.p
	if len(p.Ops) == 0 {
		if len(p.orphans) > 0 {
			// No journal replaces the killed run's: it stays until the
			// state is written.
			return x.removeBackups(p.orphans)
		}
		return nil
	}
	if x.recovering && p.recovered != nil {
		// The journal below replaces the killed run's, which is all that
		// records the files that run wrote: without this, a second kill
		// would leave them to no state (and a later apply would adopt
		// them, a prune leave them behind).
		if x.crashed("recovered") {
			return errCrashed
		}
		if err := atomicfile.Write(x.stateFile, sealState(p.key, p.recovered.Encode()), 0o644); err != nil {
			return fmt.Errorf("apply: state: %w", err)
		}
	}
	// Before the killed run's journal, which is what finds them, is
	// replaced.
	if err := x.removeBackups(p.orphans); err != nil {
		return err
	}
	if x.crashed("journal") {
		return errCrashed
	}
	if err := atomicfile.Write(x.pending, p.StateBytes(), 0o644); err != nil {
		return fmt.Errorf("apply: journal: %w", err)
	}
	return nil
}

// backups come first: nothing of the user's is replaced before its copy
// is durable.
func (x *executor) backups() error {
	for _, op := range x.p.Ops {
		if op.BackupTo == "" || !op.Exists {
			continue
		}
		b := filepath.Join(x.p.Root, filepath.FromSlash(op.BackupTo))
		if err := layout.NoLinks(x.p.Root, b); err != nil {
			return fmt.Errorf("apply: backup %s: %w", op.Rel, err)
		}
		if _, err := x.dirs.MkdirAll(filepath.Dir(b)); err != nil {
			return fmt.Errorf("apply: backup %s: %w", op.Rel, err)
		}
		if x.crashed("backup " + op.Rel) {
			return errCrashed
		}
		if err := atomicfile.WriteWith(b, op.Old, atomicfile.Options{Perm: op.perm(), Dirs: &x.dirs}); err != nil {
			return fmt.Errorf("apply: backup %s: %w", op.Rel, err)
		}
	}
	return x.syncDirs()
}

// directories makes the missing directories, outermost first
// (deduplicated across files). Their parents are fsynced with the
// directories the writes change, at the end of writes: nothing relies on
// a new directory before the files in it.
//
// Each tree of new directories (one whose top's parent exists: typically
// an agent's .claude/skills/...) is made by one worker, parent before
// child; the trees are made in parallel. A mkdir costs the file system
// most of its time (allocating the inode) and mkdirs in one parent
// serialise on it, so trees in different parents are what parallelises
// (10,000 agents, ~40,000 directories: docs/benchmarks.md, "Cold apply at
// 10,000 agents").
func (x *executor) directories() error {
	trees := dirTrees(x.p.Ops)
	width := par.IO()
	if x.crash != nil {
		width = 1 // see executor.crash: the trees in order, one at a time
	}
	errs := make([]error, len(trees))
	var crashed atomic.Bool
	par.For(len(trees), width, func(i int) {
		for _, d := range trees[i] {
			if crashed.Load() {
				return
			}
			if x.crashed("mkdir " + d) {
				crashed.Store(true)
				return
			}
			if _, err := x.dirs.MkdirAll(d); err != nil {
				errs[i] = fmt.Errorf("apply: %w", err)
				return
			}
		}
	})
	if crashed.Load() {
		return errCrashed
	}
	return errors.Join(errs...)
}

// dirTrees are the directories ops make, deduplicated and grouped in
// trees: each tree is its top directory (whose parent none of ops makes)
// and the directories below it ops make, parents first; the trees are in
// the order of their tops.
func dirTrees(ops []*Op) [][]string {
	seen := map[string]bool{}
	var dirs []string
	add := func(d string) {
		if !seen[d] {
			seen[d] = true
			dirs = append(dirs, d)
		}
	}
	for _, op := range ops {
		for _, d := range op.MkDirs {
			add(d)
		}
		if op.Dir {
			add(op.Path)
		}
	}
	sort.Strings(dirs) // a parent sorts before its children
	tree := make(map[string]int, len(dirs))
	var trees [][]string
	for _, d := range dirs {
		i, ok := tree[filepath.Dir(d)]
		if !ok {
			i = len(trees)
			trees = append(trees, nil)
		}
		tree[d] = i
		trees[i] = append(trees[i], d)
	}
	return trees
}

// writes writes the files, in parallel: each file's content is fsynced in
// its temporary file before its compare-and-swap and rename; the
// directories they were renamed into (and those the directories step
// created) are fsynced once each when all are done. A file edited since
// the snapshot is left alone (Plan.Raced).
func (x *executor) writes() error {
	var writes []*Op
	for _, op := range x.p.Ops {
		if !op.Dir && (op.Action == ActCreate || op.Action == ActUpdate || op.Action == ActRestore) {
			writes = append(writes, op)
		}
	}
	errs := make([]error, len(writes))
	raced := make([]bool, len(writes))
	var written atomic.Int64
	var crashed atomic.Bool
	width := par.IO()
	if x.crash != nil {
		width = 1 // see executor.crash
	}
	par.For(len(writes), width, func(i int) {
		op := writes[i]
		if crashed.Load() {
			return
		}
		if x.crashed("write " + op.Rel) {
			crashed.Store(true)
			return
		}
		if x.ctx.Err() != nil {
			return // stopped: the journal keeps the rest
		}
		check, noReplace := writeCAS(op)
		err := atomicfile.WriteWith(op.Path, op.Data, atomicfile.Options{
			Perm:      op.perm(),
			ExactPerm: op.SetPerm,
			Check:     check,
			NoReplace: noReplace,
			Dirs:      &x.dirs,
		})
		switch {
		case errors.Is(err, errChangedMeanwhile), noReplace && errors.Is(err, fs.ErrExist):
			raced[i] = true
		case err != nil:
			errs[i] = fmt.Errorf("apply %s: %w", op.Rel, err)
		default:
			written.Add(1)
		}
	})
	if crashed.Load() {
		return errCrashed
	}
	// Also after a failed write: the renames that were made are made
	// durable (the journal still covers them).
	if err := errors.Join(append(errs, x.syncDirs())...); err != nil {
		return err
	}
	for i, op := range writes {
		if raced[i] {
			x.p.Raced = append(x.p.Raced, op)
		}
	}
	if interrupted(x.ctx, "") != nil {
		return interruptedMidway(x.ctx, int(written.Load()), len(writes))
	}
	return nil
}

// removals carries out deletions and consumes backups, then removes the
// directories left empty, deepest first; the directories all this changed
// are fsynced once each at the end.
func (x *executor) removals() error {
	p := x.p
	for _, op := range p.Ops {
		switch {
		case op.Action == ActDelete:
			if x.crashed("delete " + op.Rel) {
				return errCrashed
			}
			if stillAsPlanned(op, op.Path) != nil {
				p.Raced = append(p.Raced, op)
				continue
			}
			if err := x.dirs.Remove(op.Path); err != nil {
				return fmt.Errorf("apply: %w", err)
			}
		case op.RemoveBackup != "" && slices.Contains(p.racedPaths(), op.Path):
			// Not restored: its backup stays, with its record.
		case op.RemoveBackup != "":
			if x.crashed("remove backup of " + op.Rel) {
				return errCrashed
			}
			if err := x.dirs.Remove(op.RemoveBackup); err != nil {
				return fmt.Errorf("apply: %w", err)
			}
			x.backupDirs = append(x.backupDirs, parentsBelow(filepath.Join(x.meta, BackupDir), op.RemoveBackup)...)
		}
	}
	// One directory at a time, deepest first (the order RemoveEmptyDirs
	// takes), so that a crash test can stop between any two.
	deepest := slices.Concat(p.RmDirs, x.backupDirs)
	sort.SliceStable(deepest, func(i, j int) bool { return len(deepest[i]) > len(deepest[j]) })
	for _, d := range deepest {
		if x.crashed("rmdir " + d) {
			return errCrashed
		}
		if err := x.dirs.RemoveEmptyDirs([]string{d}); err != nil {
			return fmt.Errorf("apply: %w", err)
		}
	}
	return x.syncDirs()
}

// raced: files edited while this apply ran are left as they are, with the
// records they had, so the next apply sees the edit as it is.
func (x *executor) raced() error {
	p := x.p
	if len(p.Raced) == 0 {
		return nil
	}
	if err := atomicfile.RemoveEmptyDirs(append(x.backupDirs, p.keepRaced()...)); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	x.stateChanged = true
	x.empty = len(p.State.Agents) == 0
	return nil
}

// syncDirs fsyncs, once each, the directories the current step changed
// (x.dirs), in parallel, and returns when all are durable. Each of backups,
// writes and removals calls it at its end, so a directory receiving 200
// renames, or a parent receiving 200 new directories, is fsynced once
// instead of 200 times, and a new directory's parent once for all its
// new children.
//
// Why this keeps every guarantee (README, "What apply writes"):
//
//   - A kill -9 loses nothing the kernel already has: fsync only matters
//     for a power loss or an OS crash, and the order of the steps (and
//     the compare-and-swap right before each rename or deletion, which
//     this does not move) is the same as with a directory fsync per file.
//   - Each file's content is fsynced in its temporary file before its
//     rename, as before: a rename that survives a power loss never shows a
//     truncated or empty file.
//   - The journal (state.pending.json) is written with its own file and
//     directory fsyncs before the first backup, directory or write: after
//     a power loss anywhere below, it is there, and recovery compares
//     every entry it records with what the disk holds (recoverState), so
//     a rename or creation lost with the power is simply not taken as
//     written.
//   - Backups are durable (this runs at the end of backups) before the
//     writes step replaces any file they copy; a restore's rename is
//     durable (end of writes) before removals deletes its backup; so at
//     no moment is the only durable copy of a user's bytes gone.
//   - state.json (and actant.owned) are written, each with its file and
//     directory fsync, by the state step, after the last syncDirs has
//     returned: when the state records a file, its content and its
//     directory entry (and those of every directory above it that apply
//     made) are already durable. The journal is removed only after that.
func (x *executor) syncDirs() error {
	if err := x.dirs.Sync(par.IO()); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	return nil
}

// state writes the committed record, then the state, last, and removes
// the journal.
func (x *executor) state() error {
	if err := x.writeOwned(); err != nil {
		return err
	}
	if x.crashed("state") {
		return errCrashed
	}
	if x.empty {
		if err := atomicfile.Remove(x.stateFile); err != nil {
			return fmt.Errorf("apply: %w", err)
		}
		x.stateChanged = x.oldState != nil
	} else if x.stateChanged {
		if err := atomicfile.Write(x.stateFile, x.p.StateBytes(), 0o644); err != nil {
			return fmt.Errorf("apply: state: %w", err)
		}
	}
	if x.crashed("remove journal") {
		return errCrashed
	}
	x.journalLeft = true
	if err := atomicfile.Remove(x.pending); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	return nil
}

// removeBackups removes backup files that are no longer needed, and the
// backup directories they leave empty.
func (x *executor) removeBackups(backups []string) error {
	var dirs []string
	for _, b := range backups {
		if x.crashed("remove backup " + b) {
			return errCrashed
		}
		if err := atomicfile.Remove(b); err != nil {
			return fmt.Errorf("apply: %w", err)
		}
		dirs = append(dirs, parentsBelow(filepath.Join(x.meta, BackupDir), b)...)
	}
	if err := atomicfile.RemoveEmptyDirs(dirs); err != nil {
		return fmt.Errorf("apply: %w", err)
	}
	return nil
}

// parentsBelow returns the directories strictly between base and path
// (path's parent up to, and including, base), deepest first.
func parentsBelow(base, path string) []string {
	var out []string
	for d := filepath.Dir(path); within(base, d); d = filepath.Dir(d) {
		out = append(out, d)
		if d == base {
			break
		}
	}
	return out
}

// cleanTemps removes the temporary files a killed apply left beside the
// files it was writing (only called when a journal shows a run was killed).
func cleanTemps(snap *Snapshot, root string) error {
	dirs := map[string]bool{filepath.Join(root, MetaDir): true}
	for abs, fi := range snap.Files {
		dirs[filepath.Dir(abs)] = true
		dirs[filepath.Dir(fi.Real)] = true
	}
	for d := range snap.Backups {
		dirs[filepath.Dir(d)] = true
	}
	var mu sync.Mutex
	var errs []error
	list := make([]string, 0, len(dirs))
	for d := range dirs {
		list = append(list, d)
	}
	par.For(len(list), par.IO(), func(i int) {
		if _, err := atomicfile.CleanTemps(list[i]); err != nil && !errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), "not a directory") {
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}
	})
	return errors.Join(errs...)
}

// removeMetaIfEmpty removes .actant/backup and .actant when nothing is
// left in them (the lock file is removed by its holder first).
func removeMetaIfEmpty(root string) {
	meta := filepath.Join(root, MetaDir)
	removeEmptyTree(filepath.Join(meta, BackupDir))
	_ = os.Remove(meta)
}

// emptyTree reports whether dir holds nothing but (empty) directories: a
// run killed between making a backup's directory and writing the backup
// leaves one.
func emptyTree(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.IsDir() || !emptyTree(filepath.Join(dir, e.Name())) {
			return false
		}
	}
	return true
}

// removeEmptyTree removes dir and the directories below it when none
// holds a file.
func removeEmptyTree(dir string) {
	if !emptyTree(dir) {
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		removeEmptyTree(filepath.Join(dir, e.Name()))
	}
	_ = os.Remove(dir)
}
