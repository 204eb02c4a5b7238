package reconcile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/par"
)

// Execute carries out plan p exactly, in the order that keeps every
// moment of it recoverable:
//
//  0. when the last apply was killed, the state recovered from its
//     journal (see Plan.recovered), before this run's journal replaces
//     that one;
//  1. the journal (.actant/state.pending.json: the state this run will
//     record), so a killed run is recognised and finished by the next;
//  2. backups of the users' files about to be replaced;
//  3. missing directories, outermost first;
//  4. the file writes, in parallel, each temp file + fsync + rename;
//  5. deletions and restores, then the emptied directories actctl made;
//  6. the state, last, and the journal is removed.
//
// oldState is the raw state.json read before planning (the state given to
// MakePlan, unless recovering); the state is not rewritten when the plan
// records exactly what that state did (or its encoding has the same
// bytes), so a no-op apply writes nothing.
// Execute must run under the workspace lock.
func Execute(p *Plan, oldState []byte, recovering bool) (stateWritten bool, err error) {
	return ExecuteContext(context.Background(), p, oldState, recovering)
}

// ExecuteContext is Execute stopping at a safe point once ctx is cancelled:
// before anything is written, or after the writes under way, leaving the
// journal for the next apply (see ErrInterrupted).
func ExecuteContext(ctx context.Context, p *Plan, oldState []byte, recovering bool) (stateWritten bool, err error) {
	// The state is unchanged when the plan records exactly what was read
	// (compared as records, not as a re-encoding: a no-op apply does not
	// encode the state at all), or, failing that, when its bytes are the
	// same.
	stateChanged := recovering || oldState == nil || (!p.stateSame && !bytes.Equal(p.StateBytes(), oldState))
	empty := len(p.State.Agents) == 0
	if empty {
		stateChanged = oldState != nil || recovering
	}
	if len(p.Ops) == 0 && len(p.RmDirs) == 0 && !stateChanged && !p.ownedChanged() {
		return false, nil
	}
	if err := interrupted(ctx, "nothing was written"); err != nil {
		return false, err
	}
	meta := filepath.Join(p.Root, MetaDir)
	if _, err := atomicfile.MkdirAll(meta); err != nil {
		return false, fmt.Errorf("apply: %w", err)
	}
	pending := filepath.Join(meta, PendingFile)
	stateFile := filepath.Join(meta, StateFile)
	if len(p.Ops) > 0 {
		if recovering && p.recovered != nil {
			// The journal below replaces the killed run's, which is all
			// that records the files that run wrote: without this, a
			// second kill would leave them to no state (and a later
			// apply would adopt them, a prune leave them behind).
			if crashed("recovered") {
				return false, errCrashed
			}
			if err := atomicfile.Write(stateFile, p.recovered.Encode(), 0o644); err != nil {
				return false, fmt.Errorf("apply: state: %w", err)
			}
		}
		// Before the killed run's journal, which is what finds them, is
		// replaced.
		if err := removeBackups(p.orphans, meta); err != nil {
			return false, err
		}
		if crashed("journal") {
			return false, errCrashed
		}
		if err := atomicfile.Write(pending, p.StateBytes(), 0o644); err != nil {
			return false, fmt.Errorf("apply: journal: %w", err)
		}
	}

	if len(p.Ops) == 0 && len(p.orphans) > 0 {
		// No journal replaces the killed run's: it stays until the state
		// is written.
		if err := removeBackups(p.orphans, meta); err != nil {
			return false, err
		}
	}

	// Backups first: nothing of the user's is replaced before its copy is
	// durable.
	for _, op := range p.Ops {
		if op.BackupTo == "" || !op.Exists {
			continue
		}
		b := filepath.Join(p.Root, filepath.FromSlash(op.BackupTo))
		if _, err := atomicfile.MkdirAll(filepath.Dir(b)); err != nil {
			return false, fmt.Errorf("apply: backup %s: %w", op.Rel, err)
		}
		perm := op.Perm
		if perm == 0 {
			perm = 0o644
		}
		if crashed("backup " + op.Rel) {
			return false, errCrashed
		}
		if err := atomicfile.Write(b, op.Old, perm); err != nil {
			return false, fmt.Errorf("apply: backup %s: %w", op.Rel, err)
		}
	}

	// Directories, outermost first (deduplicated across files).
	seen := map[string]bool{}
	var dirs []string
	for _, op := range p.Ops {
		for _, d := range op.MkDirs {
			if !seen[d] {
				seen[d] = true
				dirs = append(dirs, d)
			}
		}
		if op.Dir && !seen[op.Path] {
			seen[op.Path] = true
			dirs = append(dirs, op.Path)
		}
	}
	sort.Strings(dirs) // a parent sorts before its children
	for _, d := range dirs {
		if crashed("mkdir " + d) {
			return false, errCrashed
		}
		if _, err := atomicfile.MkdirAll(d); err != nil {
			return false, fmt.Errorf("apply: %w", err)
		}
	}

	// Writes, in parallel: each is independent and durable on its own.
	var writes []*Op
	for _, op := range p.Ops {
		if !op.Dir && (op.Action == ActCreate || op.Action == ActUpdate || op.Action == ActRestore) {
			writes = append(writes, op)
		}
	}
	errs := make([]error, len(writes))
	var written atomic.Int64
	raced := make([]bool, len(writes))
	write := func(i int) {
		if ctx.Err() != nil {
			return // stopped: the journal keeps the rest
		}
		op := writes[i]
		perm := op.Perm
		if perm == 0 {
			perm = 0o644
		}
		err := atomicfile.WriteWith(op.Path, op.Data, atomicfile.Options{
			Perm:      perm,
			ExactPerm: op.SetPerm,
			Check:     func(target string) error { return stillAsPlanned(op, target) },
		})
		switch {
		case errors.Is(err, errChangedMeanwhile):
			raced[i] = true
		case err != nil:
			errs[i] = fmt.Errorf("apply %s: %w", op.Rel, err)
		default:
			written.Add(1)
		}
	}
	if crashAt != nil {
		// One at a time, so a test can stop between any two.
		for i := range writes {
			if crashed("write " + writes[i].Rel) {
				return false, errCrashed
			}
			write(i)
		}
	} else {
		par.For(len(writes), par.IO(), write)
	}
	if err := errors.Join(errs...); err != nil {
		return false, err
	}
	for i, op := range writes {
		if raced[i] {
			p.Raced = append(p.Raced, op)
		}
	}
	if err := interrupted(ctx, ""); err != nil {
		return false, interruptedMidway(ctx, int(written.Load()), len(writes))
	}

	// Deletions, consumed backups, emptied directories.
	var backupDirs []string
	for _, op := range p.Ops {
		switch {
		case op.Action == ActDelete:
			if crashed("delete " + op.Rel) {
				return false, errCrashed
			}
			if stillAsPlanned(op, op.Path) != nil {
				p.Raced = append(p.Raced, op)
				continue
			}
			if err := atomicfile.Remove(op.Path); err != nil {
				return false, fmt.Errorf("apply: %w", err)
			}
		case op.RemoveBackup != "" && contains(p.racedPaths(), op.Path):
			// Not restored: its backup stays, with its record.
		case op.RemoveBackup != "":
			if crashed("remove backup of " + op.Rel) {
				return false, errCrashed
			}
			if err := atomicfile.Remove(op.RemoveBackup); err != nil {
				return false, fmt.Errorf("apply: %w", err)
			}
			backupDirs = append(backupDirs, parentsBelow(filepath.Join(meta, BackupDir), op.RemoveBackup)...)
		}
	}
	rmDirs := append(p.RmDirs, backupDirs...)
	if crashAt != nil {
		deepest := append([]string(nil), rmDirs...)
		sort.SliceStable(deepest, func(i, j int) bool { return len(deepest[i]) > len(deepest[j]) })
		for _, d := range deepest {
			if crashed("rmdir " + d) {
				return false, errCrashed
			}
			if err := atomicfile.RemoveEmptyDirs([]string{d}); err != nil {
				return false, fmt.Errorf("apply: %w", err)
			}
		}
	}
	if err := atomicfile.RemoveEmptyDirs(rmDirs); err != nil {
		return false, fmt.Errorf("apply: %w", err)
	}

	if len(p.Raced) > 0 {
		// Edited while this apply ran: left as they are, with the
		// records they had, so the next apply sees the edit as it is.
		backupDirs = append(backupDirs, p.keepRaced()...)
		if err := atomicfile.RemoveEmptyDirs(backupDirs); err != nil {
			return false, fmt.Errorf("apply: %w", err)
		}
		stateChanged = true
		empty = len(p.State.Agents) == 0
	}

	// The committed record, then the state, last.
	if err := p.writeOwned(); err != nil {
		return false, err
	}
	if crashed("state") {
		return false, errCrashed
	}
	if empty {
		if err := atomicfile.Remove(stateFile); err != nil {
			return false, fmt.Errorf("apply: %w", err)
		}
		stateChanged = oldState != nil
	} else if stateChanged {
		if err := atomicfile.Write(stateFile, p.StateBytes(), 0o644); err != nil {
			return false, fmt.Errorf("apply: state: %w", err)
		}
	}
	if crashed("remove journal") {
		return false, errCrashed
	}
	if err := atomicfile.Remove(pending); err != nil {
		return stateChanged, fmt.Errorf("apply: %w", err)
	}
	return stateChanged, nil
}

// crashAt, set only by tests, is asked before each step of Execute that
// changes the disk (named "journal", "write <path>", ...); when it returns
// true Execute stops right there, leaving the disk as a kill -9 at that
// moment would, and returns errCrashed. With crashAt set the writes run
// one at a time.
var crashAt func(step string) bool

var errCrashed = errors.New("apply: simulated crash")

func crashed(step string) bool { return crashAt != nil && crashAt(step) }

// removeBackups removes backup files that are no longer needed, and the
// backup directories they leave empty.
func removeBackups(backups []string, meta string) error {
	var dirs []string
	for _, b := range backups {
		if crashed("remove backup " + b) {
			return errCrashed
		}
		if err := atomicfile.Remove(b); err != nil {
			return fmt.Errorf("apply: %w", err)
		}
		dirs = append(dirs, parentsBelow(filepath.Join(meta, BackupDir), b)...)
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
