package inputs

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/par"
	"github.com/actctl/actctl/reconcile"
)

// Refresh records again, in the workspace at root, the stat data of the
// outputs that changed since the last record only where the apply does
// not look: keyed files (an instance's .actant.json) whose every
// recorded key still holds what apply wrote (reconcile.KeysHold), the
// rest of the file someone else's, such as the runtime keys `actctl up`
// writes when it starts or stops an agent. Without it, every start
// would send the fast path (and `status`) to the normal path until the
// next plain apply (docs/design.md, "The apply fast path"). Everything
// else must be as recorded: the run, the inputs, state.json, the other
// outputs; else it records nothing and says why. It returns how many
// outputs it recorded again (0 and "": nothing had changed).
func Refresh(root, home string) (int, string) {
	rec, key, why := current(root, home)
	if why != "" {
		return 0, why
	}
	sp := layout.Path(root, layout.State)
	before, why := rec.metaHolds(root)
	if why != "" {
		return 0, why
	}
	changed := changedOutputs(rec)
	if len(changed) == 0 {
		return 0, ""
	}
	st, err := reconcile.WorkspaceState(root, home)
	if err != nil {
		return 0, err.Error()
	}
	if again, err := statOf(sp, true, false); err != nil || again != before {
		return 0, "state.json changed while it was read"
	}
	if why := rec.resettle(changed, entriesAt(st, rec.Outputs, changed)); why != "" {
		return 0, why
	}
	if len(rec.Hashed) > maxHashed {
		return 0, "too many files written just now"
	}
	if why := noJournal(root); why != "" {
		return 0, why
	}
	if again, err := statOf(sp, true, false); err != nil || again != before {
		return 0, "state.json changed while the outputs were checked"
	}
	b, err := rec.encode()
	if err != nil {
		return 0, err.Error()
	}
	if err := writeSealed(path(root), seal(key, b)); err != nil {
		return 0, err.Error()
	}
	return len(changed), ""
}

// metaHolds checks what outputsUnchanged checks first: no journal, and
// state.json and actant.owned the recorded ones; it returns state.json's
// stat data.
func (rec *Record) metaHolds(root string) (Stat, string) {
	if why := noJournal(root); why != "" {
		return Stat{}, why
	}
	before, why := metaUnchanged(layout.Path(root, layout.State), rec.StateStat, rec.State, "state.json changed since the inputs were recorded")
	if why != "" {
		return before, why
	}
	op := filepath.Join(root, reconcile.OwnedFile)
	_, why = metaUnchanged(op, rec.OwnedStat, rec.Owned, op+" is not the record the state goes with")
	return before, why
}

// changedOutputs are the indexes of rec's outputs that checkFiles would
// find changed.
func changedOutputs(rec *Record) []int {
	found := make([]string, len(rec.Outputs))
	par.For(len(rec.Outputs), par.IO(), func(i int) {
		found[i] = checkFiles(rec.Outputs[i:i+1], shifted(rec.Hashed, i))
	})
	var out []int
	for i, f := range found {
		if f != "" {
			out = append(out, i)
		}
	}
	return out
}

// shifted is what hashed says of output i, as output 0.
func shifted(hashed []Hashed, i int) []Hashed {
	for _, h := range hashed {
		if h.Index == i {
			h.Index = 0
			return []Hashed{h}
		}
	}
	return nil
}

// entriesAt are the entries the state st records at each of the outputs
// changed (indexes into outs), by index.
func entriesAt(st *reconcile.State, outs []Stat, changed []int) map[int][]reconcile.EntryState {
	at := make(map[string]int, len(changed))
	for _, i := range changed {
		at[outs[i].Path] = i
	}
	by := make(map[int][]reconcile.EntryState, len(changed))
	for _, a := range st.Agents {
		for _, e := range a.Entries {
			if i, ok := at[filepath.Join(a.Dir, filepath.FromSlash(e.Path))]; ok {
				by[i] = append(by[i], e)
			}
		}
	}
	return by
}

// resettle takes again the stat data of each changed output (indexes
// into rec.Outputs) after checking that it still holds every key its
// entries record (see keysSettle); it returns why one does not.
func (rec *Record) resettle(changed []int, entries map[int][]reconcile.EntryState) string {
	out := make([]Stat, len(changed))
	sums := make([]string, len(changed))
	found := make([]string, len(changed))
	now := time.Now()
	par.For(len(changed), par.IO(), func(j int) {
		out[j], sums[j], found[j] = keysSettle(rec.Outputs[changed[j]].Path, entries[changed[j]], now)
	})
	for j, i := range changed {
		if found[j] != "" {
			return found[j]
		}
		rec.Outputs[i] = out[j]
		rec.Hashed = slices.DeleteFunc(rec.Hashed, func(h Hashed) bool { return h.Index == i })
		if out[j].Racy {
			rec.Hashed = append(rec.Hashed, Hashed{Index: i, SHA: sums[j]})
		}
	}
	slices.SortFunc(rec.Hashed, func(a, b Hashed) int { return a.Index - b.Index })
	return ""
}

// keysSettle returns the stat data to record for the keyed file p,
// whose entries es are all keys (see reconcile.KeysHold), with the
// sha256 of what it read; why when a key does not hold, or the file
// changed while it was read. Racy as settle says (settledAt).
func keysSettle(p string, es []reconcile.EntryState, now time.Time) (Stat, string, string) {
	clock, known := fileClock()
	s, err := statOf(p, true, false)
	switch {
	case err != nil:
		return s, "", err.Error()
	case s.Missing || !s.Mode.IsRegular() || len(es) == 0:
		return s, "", p + " changed since the last apply"
	}
	b, err := readRegular(p)
	if err != nil {
		return s, "", fmt.Sprintf("read %s: %v", p, err)
	}
	for _, e := range es {
		if !reconcile.KeysHold(b, e) {
			return s, "", p + " changed since the last apply"
		}
	}
	if again, err := statOf(p, true, false); err != nil || again != s {
		return s, "", p + " changed while it was read"
	}
	s.settledAt(clock, known, now)
	h := sha256.Sum256(b)
	return s, hex.EncodeToString(h[:]), ""
}
