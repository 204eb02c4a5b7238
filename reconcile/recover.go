package reconcile

import (
	"bytes"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/actctl/actctl/internal/block"
	"github.com/actctl/actctl/materialize"
)

// Crash recovery: the next apply after a killed one merges the journal
// (.actant/state.pending.json) into the recorded state; see recoverState.

// recoverState merges the journal of a killed apply into the recorded
// state: an entry the killed run already wrote (its recorded digest
// matches the disk) is taken from the journal — with the separators,
// receipts and created-file flags of that write — and any other from the
// old state. This is what lets the next apply converge instead of taking
// actctl's own half-applied files for the user's.
//
// It also returns the backups the killed run made of files it did not get
// to replace (the file still has the backup's bytes, and no record keeps
// the backup): copies nothing refers to, removed by Execute.
func recoverState(old, pending *State, snap *Snapshot) (*State, []string) {
	out := NewState()
	out.ConfigDigest, out.LockDigest = old.ConfigDigest, old.LockDigest
	type key struct {
		abs  string
		mode materialize.Mode
	}
	names := map[string]bool{}
	for n := range old.Agents {
		names[n] = true
	}
	for n := range pending.Agents {
		names[n] = true
	}
	for n := range names {
		o, p := old.Agents[n], pending.Agents[n]
		dir := ""
		if p != nil {
			dir = p.Dir
		} else {
			dir = o.Dir
		}
		oldEntries := map[key]EntryState{}
		if o != nil {
			for _, e := range o.Entries {
				oldEntries[key{filepath.Join(o.Dir, filepath.FromSlash(e.Path)), e.Mode}] = e
			}
		}
		var entries []EntryState
		used := map[key]bool{}
		if p != nil {
			for _, e := range p.Entries {
				k := key{filepath.Join(p.Dir, filepath.FromSlash(e.Path)), e.Mode}
				oe, hasOld := oldEntries[k]
				if m, ok := mergeEntry(n, e, oe, hasOld, snap.Files[k.abs]); ok {
					entries = append(entries, m)
				}
				used[k] = true
			}
		}
		if o != nil && dir != "" {
			for k, e := range oldEntries {
				if used[k] {
					continue
				}
				if e.Backup != "" && snap.Backups[filepath.Join(snap.Root, filepath.FromSlash(e.Backup))] == nil {
					// The killed run dropped this record and consumed its
					// backup: the restore was written before the backup
					// was removed, so the file is the user's again.
					continue
				}
				if dir != o.Dir {
					rel, err := filepath.Rel(dir, k.abs)
					if err != nil || strings.HasPrefix(rel, "..") {
						continue
					}
					e.Path = filepath.ToSlash(rel)
				}
				entries = append(entries, e)
			}
		}
		if len(entries) > 0 || (p != nil && o != nil) {
			out.Agents[n] = &AgentState{Dir: dir, Entries: entries}
		}
	}
	return out, orphanBackups(old, pending, out, snap)
}

// orphanBackups returns the backups the old state or the journal name
// that no record of the recovered state keeps, and that are copies of
// bytes still kept elsewhere: the file itself (the killed run backed it up
// and did not replace it) or a kept backup of the same file (the killed
// run made a new one before consuming the old). Any other is left alone.
func orphanBackups(old, pending, out *State, snap *Snapshot) []string {
	backupAbs := func(b string) string { return filepath.Join(snap.Root, filepath.FromSlash(b)) }
	keptBackups := map[string][][]byte{} // file -> bytes of its kept backups
	kept := map[string]bool{}
	for _, a := range out.Agents {
		for _, e := range a.Entries {
			if e.Backup != "" {
				kept[e.Backup] = true
				f := filepath.Join(a.Dir, filepath.FromSlash(e.Path))
				keptBackups[f] = append(keptBackups[f], snap.Backups[backupAbs(e.Backup)])
			}
		}
	}
	var orphans []string
	for _, st := range []*State{old, pending} {
		for _, a := range st.Agents {
			for _, e := range a.Entries {
				if e.Backup == "" || kept[e.Backup] {
					continue
				}
				b := backupAbs(e.Backup)
				data := snap.Backups[b]
				if data == nil || slices.Contains(orphans, b) {
					continue
				}
				f := filepath.Join(a.Dir, filepath.FromSlash(e.Path))
				copyOf := false
				if fi := snap.Files[f]; fi != nil && fi.Exists && bytes.Equal(fi.Data, data) {
					copyOf = true
				}
				for _, k := range keptBackups[f] {
					copyOf = copyOf || (k != nil && bytes.Equal(k, data))
				}
				if copyOf {
					orphans = append(orphans, b)
				}
			}
		}
	}
	sort.Strings(orphans)
	return orphans
}

// mergeEntry picks the journal's entry pe where the disk shows it was
// written, else the old entry oe (if any). The killed run created its
// directories (pe.Dirs) before any file: where its write did not happen,
// the record kept still lists them, so a prune removes them again — the
// old entry, or, when there is none and the file does not exist, pe
// itself (a record of a missing file: the next plan writes it or drops
// it, and its directories with it).
func mergeEntry(agent string, pe, oe EntryState, hasOld bool, fi *FileInfo) (EntryState, bool) {
	if written(agent, pe, fi) {
		return pe, true
	}
	if hasOld {
		if len(pe.Dirs) > 0 {
			oe.Dirs = mergeDirs(oe.Dirs, pe.Dirs)
		}
		return oe, true
	}
	if fi == nil || !fi.Exists {
		return pe, true
	}
	return oe, false
}

// written reports whether the disk (fi) holds the journal entry pe.
func written(agent string, pe EntryState, fi *FileInfo) bool {
	exists := fi != nil && fi.Exists
	switch pe.Mode {
	case materialize.ModeDir:
		return exists
	case materialize.ModeFile:
		return exists && sum(fi.Data) == pe.SHA256 && isExec(fi.Perm) == pe.Exec
	case materialize.ModeBlock:
		if exists {
			body, ok, err := block.Find(fi.Data, blockName(agent, &pe), pe.Style)
			return err == nil && ok && sum(body) == pe.SHA256
		}
	case materialize.ModeKeys:
		kc, err := codecFor(pe.Format)
		if err != nil || !exists {
			return false
		}
		for _, k := range pe.Keys {
			v, ok, err := kc.get(fi.Data, k.Path)
			if err != nil || !ok || sum(canonical(v)) != k.SHA256 {
				return false
			}
		}
		return true
	}
	return false
}
