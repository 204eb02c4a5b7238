package reconcile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/materialize"
)

// Compare and swap (README, "What apply writes"): a file is replaced or
// deleted only if it still holds what the plan read. One edited while
// apply runs is left as it is, reported as drift, and keeps the records
// it had, so the next apply sees the edit for what it is.

// errChangedMeanwhile: the file no longer holds what the plan read.
var errChangedMeanwhile = errors.New("changed while apply ran")

// beforeSwap, set only by tests, runs right before a file's
// compare-and-swap (after the new content is durable in its temporary
// file): the moment a concurrent hand edit would come in.
var beforeSwap func(rel string)

// writeCAS is the compare-and-swap of op's write: Check and NoReplace
// of its atomicfile.Options. A file that existed must still hold op.Old
// (stillAsPlanned, right before the rename); a new one must still be
// missing, which the rename itself ensures (NoReplace: one atomic step
// on Linux, and no read), failing with fs.ErrExist.
func writeCAS(op *Op) (check func(target string) error, noReplace bool) {
	if op.Exists {
		return func(target string) error { return stillAsPlanned(op, target) }, false
	}
	return func(string) error {
		if beforeSwap != nil {
			beforeSwap(op.Rel)
		}
		return nil
	}, true
}

// stillAsPlanned checks that target holds what the plan read for op:
// op.Old when it existed, nothing when it did not.
func stillAsPlanned(op *Op, target string) error {
	if beforeSwap != nil {
		beforeSwap(op.Rel)
	}
	data, err := os.ReadFile(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !op.Exists {
			return nil
		}
	case err != nil:
		return fmt.Errorf("read %s: %w", target, err)
	case op.Exists && bytes.Equal(data, op.Old):
		return nil
	}
	return errChangedMeanwhile
}

// racedPaths are the real paths of the raced ops.
func (p *Plan) racedPaths() []string {
	out := make([]string, 0, len(p.Raced))
	for _, op := range p.Raced {
		out = append(out, op.Path)
	}
	return out
}

// keepRaced gives every raced file, in the state to record, the records it
// had before this run (p.prev) instead of the planned ones, and removes
// the backups this run made of them (their files were not replaced). It
// returns the backup directories that may now be empty.
func (p *Plan) keepRaced() []string {
	raced := map[string]bool{}
	var dirs []string
	meta := filepath.Join(p.Root, MetaDir)
	for _, op := range p.Raced {
		raced[op.Path] = true
		raced[op.absPath(p.Root)] = true
		if op.BackupTo != "" {
			b := filepath.Join(p.Root, filepath.FromSlash(op.BackupTo))
			if atomicfile.Remove(b) == nil {
				dirs = append(dirs, parentsBelow(filepath.Join(meta, BackupDir), b)...)
			}
		}
	}
	isRaced := func(dir string, e *EntryState) bool {
		return e.Mode != materialize.ModeDir && raced[filepath.Join(dir, filepath.FromSlash(e.Path))]
	}
	next := p.State.clone()
	for _, a := range next.Agents {
		kept := a.Entries[:0]
		for i := range a.Entries {
			if !isRaced(a.Dir, &a.Entries[i]) {
				kept = append(kept, a.Entries[i])
			}
		}
		a.Entries = kept
	}
	if p.prev != nil {
		for n, pa := range p.prev.Agents {
			for i := range pa.Entries {
				e := pa.Entries[i]
				if !isRaced(pa.Dir, &e) {
					continue
				}
				a := next.Agents[n]
				if a == nil {
					a = &AgentState{Dir: pa.Dir}
					next.Agents[n] = a
				}
				if a.Dir != pa.Dir {
					rel, err := filepath.Rel(a.Dir, filepath.Join(pa.Dir, filepath.FromSlash(e.Path)))
					if err != nil {
						continue
					}
					e.Path = filepath.ToSlash(rel)
				}
				e.FileSHA, e.Alt = "", nil
				a.Entries = append(a.Entries, e)
			}
		}
	}
	for _, a := range next.Agents {
		sortEntryStates(a.Entries)
	}
	p.State, p.StateData, p.stateSame = next, nil, false
	p.setOwned(p.ownedPrev)
	return dirs
}

// perm is the mode the op's file is written with (0o644 unless the plan
// says otherwise).
func (op *Op) perm() fs.FileMode {
	if op.Perm == 0 {
		return 0o644
	}
	return op.Perm
}

// absPath is the op's path as the plan named it (before symbolic links
// inside the workspace were resolved).
func (op *Op) absPath(root string) string {
	if filepath.IsAbs(op.Rel) {
		return op.Rel
	}
	return filepath.Join(root, filepath.FromSlash(op.Rel))
}

// writeOwned writes (or removes) actant.owned when it changes.
func (x *executor) writeOwned() error {
	p := x.p
	if !p.ownedChanged() {
		return nil
	}
	if x.crashed("owned") {
		return errCrashed
	}
	path := filepath.Join(p.Root, OwnedFile)
	if p.ownedNew == nil {
		if err := atomicfile.Remove(path); err != nil {
			return fmt.Errorf("apply: %w", err)
		}
		return nil
	}
	if err := atomicfile.Write(path, p.ownedNew, 0o644); err != nil {
		return fmt.Errorf("apply: %s: %w", OwnedFile, err)
	}
	return nil
}
