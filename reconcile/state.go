package reconcile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strconv"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/internal/par"
	"github.com/actctl/actctl/materialize"
)

// Names inside the workspace's metadata directory (see internal/layout,
// which holds the whole table).
const (
	// MetaDir is the directory, in the workspace root, holding state.json,
	// the lock and backups. The renderer refuses to write into it.
	MetaDir = layout.Dir
	// StateFile records what the last apply wrote.
	StateFile = layout.State
	// PendingFile is the journal of an apply in progress: the state that
	// apply will record when it finishes. It exists only while an apply
	// writes; finding it means the last apply was killed, and the next one
	// uses it to recognise the files that apply already wrote (see
	// recoverState), so a kill -9 at any point converges.
	PendingFile = layout.Pending
	// LockFile serialises apply and proxy on one workspace.
	LockFile = layout.Lock
	// BackupDir holds users' files that overwrite or --force replaced.
	BackupDir = layout.Backup
)

// StateVersion is the format version of state.json.
const StateVersion = 1

// State is the content of .actant/state.json: per agent, every entry the
// last apply manages, with the digest of what it wrote, so the next apply
// can tell a hand edit (drift) from its own output and undo exactly its own
// changes on prune.
type State struct {
	Version int `json:"version"`
	// Root is the workspace root the state was written for. A state found
	// under another root belongs to a copied or moved workspace: its
	// absolute agent directories point at the original, so it is refused
	// rather than acted on.
	Root string `json:"root,omitempty"`
	// ConfigDigest is the digest of the rendered targets of the last apply.
	ConfigDigest string `json:"configDigest,omitempty"`
	// LockDigest is the digest of actant.lock at the last apply (set by the
	// caller through Options.LockDigest; empty without a hub).
	LockDigest string `json:"lockDigest,omitempty"`
	// Owned is the sha256 of the committed record (actant.owned) this
	// state goes with, as the apply that wrote both left it. A record
	// with another digest came from elsewhere (a pull, a checkout, a
	// fresh clone) and is merged in (see mergeOwned).
	Owned  string                 `json:"owned,omitempty"`
	Agents map[string]*AgentState `json:"agents"`
}

// AgentState is what one agent owns.
type AgentState struct {
	// Dir is the agent's absolute workspace directory at the time of the
	// apply; entry paths are relative to it.
	Dir     string       `json:"dir"`
	Entries []EntryState `json:"entries"`
}

// EntryState is one managed entry as written.
type EntryState struct {
	Path string           `json:"path"`
	Mode materialize.Mode `json:"mode"`
	// SHA256 is the digest of the whole file (ModeFile) or of the block
	// body (ModeBlock) as written.
	SHA256 string `json:"sha256,omitempty"`
	Style  string `json:"style,omitempty"`
	// Shared: the block is the file's own (materialize.Entry.Shared), its
	// markers name no agent; every agent wanting it records it.
	Shared bool   `json:"shared,omitempty"`
	Format string `json:"format,omitempty"`
	// Sep is what block.Upsert inserted before the block; prune removes
	// exactly these bytes again, the blocks of a file taken out last
	// first as they stand in it (see editItems). Records written before
	// the state had no counters also hold a "seq" (an insertion counter);
	// it is read and ignored (docs/json.md).
	Sep  string     `json:"sep,omitempty"`
	Keys []KeyState `json:"keys,omitempty"`
	// Created: the file did not exist before actctl wrote it, so it is
	// deleted on prune once nothing but whitespace (or {}) is left.
	Created bool `json:"created,omitempty"`
	// Adopted: the owned file already held exactly this content before
	// actctl managed it (a fresh clone of a repository that commits its
	// materialized files). It is kept up to date like any owned file, but
	// on prune it is left in place: it was there before actctl.
	Adopted bool `json:"adopted,omitempty"`
	// Exec: ModeFile, actctl made the file executable (a skill's script).
	Exec bool `json:"exec,omitempty"`
	// Backup is the user's original file (slash path relative to the
	// workspace root), moved aside by workDirConflict=overwrite and put
	// back on prune.
	Backup string `json:"backup,omitempty"`
	// FileSHA is the digest of the whole file as this apply left it, set
	// only when nothing in the file drifted. When the file still has these
	// bytes and the desired entries are unchanged, the next plan keeps the
	// records without parsing the file: the no-op fast path.
	FileSHA string `json:"fileSha256,omitempty"`
	// Dirs are the directories actctl created for this entry, relative to
	// the agent dir ("." is the agent dir itself); prune removes the empty
	// ones.
	Dirs []string `json:"dirs,omitempty"`
	// Alt are other digests of this entry that count as actctl's: those
	// of the committed record (actant.owned) where it differs from this
	// machine's state (see mergeOwned). Never written.
	Alt []string `json:"-"`
	// Claim: the entry comes only from a committed record that came from
	// elsewhere (a pull, a clone) and no plan of this machine has
	// confirmed it yet (its agent wanting exactly it). Such a record may
	// make apply update what it finds, never remove it unless git holds
	// that content at HEAD (see planner.vouched). Kept in state.json,
	// never in actant.owned.
	Claim bool `json:"claim,omitempty"`
}

// KeyState is one managed key.
type KeyState struct {
	Path []string `json:"path"`
	// SHA256 is the digest of the key's canonical JSON value as written.
	SHA256 string `json:"sha256"`
	// Want is the digest of the desired value as rendered (before
	// canonicalisation), for the fast path (see FileSHA).
	Want string `json:"want,omitempty"`
	// Receipt is what the key library's Set reported (parent objects it
	// created, the text it replaced), handed back to its Delete on prune so
	// the user's file returns to its exact bytes.
	Receipt json.RawMessage `json:"receipt,omitempty"`
	// Alt: as on EntryState.
	Alt []string `json:"-"`
}

// NewState returns an empty state.
func NewState() *State { return &State{Version: StateVersion, Agents: map[string]*AgentState{}} }

func metaPath(root, name string) string { return layout.Path(root, name) }

// damagedState says what a state file that does not parse is, and what
// the user can do about it.
func damagedState(path string, err error) error {
	if filepath.Base(path) == PendingFile {
		return fmt.Errorf("%s is damaged (%v): it is the journal of an apply that was interrupted, the only record of the files that run wrote. Delete it and apply again: those files then count as yours (adopted where they hold exactly what apply writes, otherwise reported and kept)", path, err)
	}
	return fmt.Errorf("%s is damaged (%v): it is actctl's record, on this machine, of the files, blocks and keys it wrote. Restore it from a backup, or delete it and apply again: actctl then counts as its own only what %s (the committed record) lists inside the workspace root; other files, blocks and keys that hold exactly what apply would write are adopted (and left in place when their agent is removed), and the rest are treated as yours (reported and kept; with workDirConflict \"overwrite\", backed up before they are replaced)", path, err, OwnedFile)
}

func parseState(data []byte) (*State, error) {
	st, err := decodeStateFast(data)
	if err != nil {
		st = NewState()
		if err := json.Unmarshal(data, st); err != nil {
			return nil, err
		}
	}
	if st.Version > StateVersion {
		return nil, fmt.Errorf("state version %d is newer than this actctl understands (%d); upgrade actctl", st.Version, StateVersion)
	}
	if st.Agents == nil {
		st.Agents = map[string]*AgentState{}
	}
	st.Version = StateVersion
	return st, nil
}

// Encode returns the canonical bytes of the state: compact JSON (indenting
// costs more than the rest of a no-op apply at 1000 agents), entries
// sorted, so an unchanged state encodes to identical bytes and a no-op
// apply does not rewrite it.
func (s *State) Encode() []byte { return encodeState(s, false) }

func sortEntryStates(es []EntryState) {
	sort.Slice(es, func(i, j int) bool {
		if es[i].Path != es[j].Path {
			return es[i].Path < es[j].Path
		}
		return es[i].Mode < es[j].Mode
	})
}

func (s *State) clone() *State {
	out := &State{Version: s.Version, Root: s.Root, ConfigDigest: s.ConfigDigest, LockDigest: s.LockDigest, Owned: s.Owned, Agents: map[string]*AgentState{}}
	for n, a := range s.Agents {
		out.Agents[n] = &AgentState{Dir: a.Dir, Entries: append([]EntryState(nil), a.Entries...)}
	}
	return out
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// digest is a sha256 kept as bytes, compared with the hex form recorded
// in the state without formatting it (the no-op path compares one per
// entry and per file).
type digest [sha256.Size]byte

const hexDigits = "0123456789abcdef"

// is reports whether h is d in lowercase hex (the form sum writes).
func (d *digest) is(h string) bool {
	if len(h) != 2*len(d) {
		return false
	}
	for i, b := range d {
		if h[2*i] != hexDigits[b>>4] || h[2*i+1] != hexDigits[b&15] {
			return false
		}
	}
	return true
}

// entrySums are the digests of one desired entry, computed once per run
// (for the config digest and the planner's fast path).
type entrySums struct {
	content digest   // of Content
	keys    []digest // of each key's Value
}

// blockIs reports whether h is the digest of the entry's block body as
// planText writes it (normBody), reusing the content digest when normBody
// changes nothing.
func (s *entrySums) blockIs(e *materialize.Entry, h string) bool {
	c := e.Content
	if len(c) == 0 || (c[len(c)-1] == '\n' && !bytes.Contains(c, []byte("\r\n"))) {
		return s.content.is(h)
	}
	return sum(normBody(c)) == h
}

// digestTargets computes a digest of everything the targets want on disk
// (recorded as the state's ConfigDigest, so that a later apply tells
// cheaply whether the rendered config changed) and the digests of every
// entry (sums[i][j] for targets[i].Entries[j]). The digest's text is exactly
// what
//
//	fmt.Fprintf(h, "agent %q %q %q\n", t.Agent, t.Dir, t.Conflict)
//	fmt.Fprintf(h, "%q %s %s %s %s\n", e.Path, e.Mode, e.Style, e.Format, sum(e.Content))
//	fmt.Fprintf(h, " %q %s\n", k.Path, sum(k.Value))
//
// writes (the recorded ConfigDigest stays comparable), without fmt; each
// target's text and entry digests are made in parallel, and hashed in
// order.
func digestTargets(targets []*materialize.Target) (string, [][]entrySums) {
	sums := make([][]entrySums, len(targets))
	texts := make([][]byte, len(targets))
	par.For(len(targets), par.IO(), func(i int) {
		t := targets[i]
		es := make([]entrySums, len(t.Entries))
		sums[i] = es
		buf := make([]byte, 0, 64+len(t.Entries)*160)
		buf = append(buf, "agent "...)
		buf = strconv.AppendQuote(buf, t.Agent)
		buf = append(buf, ' ')
		buf = strconv.AppendQuote(buf, t.Dir)
		buf = append(buf, ' ')
		buf = strconv.AppendQuote(buf, t.Conflict)
		buf = append(buf, '\n')
		for x := range t.Entries {
			e := &t.Entries[x]
			s := &es[x]
			s.content = sha256.Sum256(e.Content)
			buf = strconv.AppendQuote(buf, e.Path)
			buf = append(buf, ' ')
			buf = append(buf, e.Mode...)
			buf = append(buf, ' ')
			buf = append(buf, e.Style...)
			if e.Shared {
				buf = append(buf, "/shared"...)
			}
			buf = append(buf, ' ')
			buf = append(buf, e.Format...)
			buf = append(buf, ' ')
			buf = hex.AppendEncode(buf, s.content[:])
			if e.Exec {
				buf = append(buf, " exec"...)
			}
			buf = append(buf, '\n')
			if len(e.Keys) > 0 {
				s.keys = make([]digest, len(e.Keys))
			}
			for j, k := range e.Keys {
				s.keys[j] = sha256.Sum256(k.Value)
				buf = append(buf, " ["...)
				for y, p := range k.Path {
					if y > 0 {
						buf = append(buf, ' ')
					}
					buf = strconv.AppendQuote(buf, p)
				}
				buf = append(buf, "] "...)
				buf = hex.AppendEncode(buf, s.keys[j][:])
				buf = append(buf, '\n')
			}
		}
		texts[i] = buf
	})
	h := sha256.New()
	for _, b := range texts {
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), sums
}

// equalStates reports whether two states record the same thing, so that
// one need not be encoded (and written) in place of the other. Entries are
// compared in order: a is canonical (sorted), and a b that is not sorted
// compares unequal, which only costs a rewrite.
func equalStates(a, b *State) bool {
	if a.Version != b.Version || a.Root != b.Root || a.ConfigDigest != b.ConfigDigest || a.LockDigest != b.LockDigest || a.Owned != b.Owned || len(a.Agents) != len(b.Agents) {
		return false
	}
	for n, x := range a.Agents {
		y, ok := b.Agents[n]
		if !ok || x == nil || y == nil || x.Dir != y.Dir || len(x.Entries) != len(y.Entries) {
			return false
		}
		for i := range x.Entries {
			if !equalEntries(&x.Entries[i], &y.Entries[i]) {
				return false
			}
		}
	}
	return true
}

func equalEntries(a, b *EntryState) bool {
	if a.Path != b.Path || a.Mode != b.Mode || a.SHA256 != b.SHA256 || a.Style != b.Style || a.Shared != b.Shared ||
		a.Format != b.Format || a.Sep != b.Sep || a.Created != b.Created || a.Adopted != b.Adopted || a.Exec != b.Exec || a.Claim != b.Claim ||
		a.Backup != b.Backup || a.FileSHA != b.FileSHA || !slices.Equal(a.Dirs, b.Dirs) || len(a.Keys) != len(b.Keys) {
		return false
	}
	for i := range a.Keys {
		x, y := &a.Keys[i], &b.Keys[i]
		if x.SHA256 != y.SHA256 || x.Want != y.Want || !slices.Equal(x.Path, y.Path) || !bytes.Equal(x.Receipt, y.Receipt) {
			return false
		}
	}
	return true
}
