package reconcile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/actctl/actctl/materialize"
)

// OwnedFile is the committed record of what actctl owns inside the
// workspace root (README, "What apply writes"): it sits beside actant.lock
// and is meant to be committed with the materialized files, so that a
// fresh clone knows which files, blocks and keys are actctl's exactly as
// the original checkout does. .actant/state.json stays the machine-local
// record (absolute directories, instances under $ACTANT_HOME, backups).
//
// Its content is the part of the state below the root: agent directories
// relative to the root ("." for the root itself), no backups, no digests
// of the config or the lock, indented JSON with sorted keys and entries,
// so it is the same on every machine and diffs cleanly. Apply writes it
// atomically just before the state, and removes it when nothing is left.
const OwnedFile = "actant.owned"

// ownedRecord is a read committed record: the State as decoded (relative
// dirs) and its bytes (nil when there is no file). st is nil, too, for
// the record this machine's last apply (or the killed run's journal)
// wrote: it says nothing the state does not (see foreign), so it is not
// decoded.
type ownedRecord struct {
	st   *State
	data []byte
	sum  string // of data; "" without a file
}

// readOwned reads root/actant.owned; a missing file is no record. A
// record whose digest is one of mine (the Owned of the state and of the
// journal) is not decoded.
func readOwned(root string, mine ...string) (*ownedRecord, error) {
	p := filepath.Join(root, OwnedFile)
	data, err := readRegular(p)
	if errors.Is(err, fs.ErrNotExist) {
		return &ownedRecord{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	h := sum(data)
	for _, m := range mine {
		if m != "" && m == h {
			return &ownedRecord{data: data, sum: h}, nil
		}
	}
	st, err := parseState(data)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w; it is the committed record of the files, blocks and keys actctl wrote: restore it from git (git checkout -- %s), or delete it, and actctl then knows only what .actant/state.json records on this machine",
			p, err, OwnedFile)
	}
	for n, a := range st.Agents {
		if a == nil || filepath.IsAbs(a.Dir) || !isCleanRel(a.Dir) && a.Dir != "." {
			return nil, fmt.Errorf("read %s: agent %q: directory %q is not relative to the workspace root", p, n, a.Dir)
		}
		// Receipts as the state holds them (compact), so an unchanged
		// record compares equal without encoding it. Backups are this
		// machine's: a committed record never names one.
		for i := range a.Entries {
			a.Entries[i].Backup = ""
			sanitizeClaim(&a.Entries[i])
			for j := range a.Entries[i].Keys {
				k := &a.Entries[i].Keys[j]
				k.Receipt = sanitizeReceipt(k.Receipt)
				var b bytes.Buffer
				if len(k.Receipt) > 0 && json.Compact(&b, k.Receipt) == nil {
					k.Receipt = b.Bytes()
				}
			}
		}
	}
	return &ownedRecord{st: st, data: data, sum: h}, nil
}

// sanitizeClaim drops what a committed record from elsewhere could use
// to remove more than actctl ever wrote: a separator that is not the
// line endings block.Upsert inserts, and created directories that are
// not the entry's own directory or one of its parents (receipts: see
// sanitizeReceipt).
func sanitizeClaim(e *EntryState) {
	switch e.Sep {
	case "", "\n", "\r\n", "\n\n", "\r\n\r\n":
	default:
		e.Sep = ""
	}
	dirs := e.Dirs[:0:0]
	for _, d := range e.Dirs {
		if d == "." || d == e.Path || isCleanRel(d) && strings.HasPrefix(e.Path, d+"/") {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) != len(e.Dirs) {
		e.Dirs = dirs
	}
}

// sanitizeReceipt drops from a key's receipt in a committed record from
// elsewhere the parts that say which bytes around the key to take away
// or put back, when they hold more than the key libraries ever record
// there: "doc" (the blank document Set started from: whitespace),
// "closing" (a line ending and indentation) and "sep" (the line endings
// before a TOML section). A receipt that does not parse is dropped.
func sanitizeReceipt(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return r
	}
	var m map[string]any
	if json.Unmarshal(r, &m) != nil {
		return nil
	}
	cut := map[string]string{"doc": " \t\r\n", "closing": " \t\r\n", "sep": "\r\n"}
	changed := false
	for f, allowed := range cut {
		v, ok := m[f]
		if !ok {
			continue
		}
		if s, isStr := v.(string); !isStr || strings.Trim(s, allowed) != "" {
			delete(m, f)
			changed = true
		}
	}
	if !changed {
		return r
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return out
}

// absolute returns the record with directories joined to root (nil when
// there is no record), ready to merge into the state.
func (o *ownedRecord) absolute(root string) *State {
	if o == nil || o.st == nil {
		return nil
	}
	out := NewState()
	for n, a := range o.st.Agents {
		out.Agents[n] = &AgentState{Dir: filepath.Join(root, filepath.FromSlash(a.Dir)), Entries: a.Entries}
	}
	return out
}

// ownedOf is the committed record of st: its agents whose directory is
// the root or below it, except the machine-local ones (local: the agents
// `actctl proxy -t` created, recorded in .actant/adhoc.json), with
// relative directories and without backups. Nil when no agent is left.
func ownedOf(st *State, root string, local map[string]bool) *State {
	out := NewState()
	for n, a := range st.Agents {
		if local[n] {
			continue
		}
		rel, err := filepath.Rel(root, a.Dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			continue
		}
		out.Agents[n] = &AgentState{Dir: filepath.ToSlash(rel), Entries: committedEntries(a.Entries)}
	}
	if len(out.Agents) == 0 {
		return nil
	}
	return out
}

// committedEntries are es without backups, alternative digests and
// claim marks: es itself (read only: the record is encoded and compared,
// never changed) when none has any, as after most applies; else a copy.
func committedEntries(es []EntryState) []EntryState {
	clean := true
	for i := range es {
		clean = clean && es[i].Backup == "" && es[i].Alt == nil && !es[i].Claim
	}
	if clean {
		return es
	}
	out := make([]EntryState, len(es))
	for i, e := range es {
		e.Backup = ""
		e.Alt = nil
		e.Claim = false
		out[i] = e
	}
	return out
}

// encodeOwned is the committed record's bytes: indented JSON, sorted.
func encodeOwned(st *State) []byte { return encodeState(st, true) }

// foreign reports whether the committed record did not come from this
// machine's last apply (st, or the killed run's journal pending): then it
// is merged into the state. One this machine wrote says nothing the state
// does not (and may be older than it, when a run was killed).
func (o *ownedRecord) foreign(st, pending *State) bool {
	if o == nil || o.data == nil {
		return false
	}
	return o.sum != st.Owned && (pending == nil || o.sum != pending.Owned)
}

// setOwned decides the committed record the plan leaves and records its
// digest in the plan's state: unchanged (the bytes read) when it records
// the same, else re-encoded; none when no agent is left below the root.
func (p *Plan) setOwned(prev *ownedRecord) {
	p.ownedPrev = prev
	next := ownedOf(p.State, p.Root, p.localAgents)
	switch {
	case next == nil:
		p.ownedNew, p.State.Owned = nil, ""
	case prev != nil && prev.st != nil && equalStates(next, prev.st):
		p.ownedNew, p.State.Owned = prev.data, prev.sum
	default:
		p.ownedNew = encodeOwned(next)
		if prev != nil && bytes.Equal(p.ownedNew, prev.data) {
			p.ownedNew, p.State.Owned = prev.data, prev.sum
		} else {
			p.State.Owned = sum(p.ownedNew)
		}
	}
	p.StateData = nil
}

// ownedChanged reports whether actant.owned must be written or removed.
func (p *Plan) ownedChanged() bool {
	var old []byte
	if p.ownedPrev != nil {
		old = p.ownedPrev.data
	}
	return (old == nil) != (p.ownedNew == nil) || !bytes.Equal(old, p.ownedNew)
}

// mergeOwned adds the committed record (absolute directories) to the
// machine-local state st, which it does not modify: an entry only the
// record has is taken from it, as a claim (EntryState.Claim); an entry
// both have keeps the local one, and the record's digests count as
// actctl's too (Alt), so that after a pull the teammate's newer output is
// recognised as actctl's, not taken for a hand edit. An agent whose local
// directory differs from the record's keeps the local one.
//
// An agent only the record has that is not declared either (declared)
// is left out, and named in the result: it is not pruned on the
// committed record's word alone (docs/design.md, "Ownership and provenance").
func mergeOwned(st, owned *State, declared func(string) bool) (*State, []string) {
	if owned == nil || len(owned.Agents) == 0 {
		return st, nil
	}
	out := st.clone()
	var unknown []string
	for n, oa := range owned.Agents {
		a := out.Agents[n]
		if a == nil && !declared(n) {
			unknown = append(unknown, n)
			continue
		}
		if a == nil {
			out.Agents[n] = &AgentState{Dir: oa.Dir, Entries: claims(oa.Entries)}
			continue
		}
		if a.Dir != oa.Dir {
			continue
		}
		for _, oe := range oa.Entries {
			i := findEntry(a.Entries, oe.Path, oe.Mode)
			if i < 0 {
				oe.Claim = true
				a.Entries = append(a.Entries, oe)
				continue
			}
			a.Entries[i] = withAlt(a.Entries[i], oe)
		}
		sortEntryStates(a.Entries)
	}
	slices.Sort(unknown)
	return out, unknown
}

// claims is a copy of es, each marked as a claim.
func claims(es []EntryState) []EntryState {
	out := make([]EntryState, len(es))
	for i, e := range es {
		e.Claim = true
		out[i] = e
	}
	return out
}

func findEntry(es []EntryState, path string, mode materialize.Mode) int {
	for i := range es {
		if es[i].Path == path && es[i].Mode == mode {
			return i
		}
	}
	return -1
}

// withAlt returns e with the digests of other (the same entry in the
// other record) added as alternatives where they differ.
func withAlt(e, other EntryState) EntryState {
	if other.SHA256 != "" && other.SHA256 != e.SHA256 && !slices.Contains(e.Alt, other.SHA256) {
		e.Alt = append(append([]string(nil), e.Alt...), other.SHA256)
	}
	if len(other.Keys) == 0 {
		return e
	}
	keys := append([]KeyState(nil), e.Keys...)
	for _, ok := range other.Keys {
		for i := range keys {
			k := &keys[i]
			if slices.Equal(k.Path, ok.Path) && ok.SHA256 != k.SHA256 && !slices.Contains(k.Alt, ok.SHA256) {
				k.Alt = append(append([]string(nil), k.Alt...), ok.SHA256)
			}
		}
	}
	e.Keys = keys
	return e
}

// owns reports whether h is a digest actctl recorded for this entry (in
// the local state or the committed record).
func (e *EntryState) owns(h string) bool { return e.SHA256 == h || slices.Contains(e.Alt, h) }

// owns reports whether h is a digest actctl recorded for this key.
func (k *KeyState) owns(h string) bool { return k.SHA256 == h || slices.Contains(k.Alt, h) }

// notUnknown says, in one line, which agents the committed record names
// that are neither declared nor applied on this machine: they are left
// out of the plan (see mergeOwned), their files as they are.
func (p *Plan) notUnknown(names []string) {
	if len(names) == 0 {
		return
	}
	p.Notes = append(p.Notes, Note{Rel: OwnedFile, Action: ActWarning, Reason: fmt.Sprintf(
		"names agent(s) %s, neither declared nor applied on this machine: not pruned on the committed record's word alone; their files are left as they are, and the record no longer lists them",
		strings.Join(names, ", "))})
}
