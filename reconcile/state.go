// Package reconcile brings an agent's workspace in line with its rendered
// targets without ever losing a byte the user wrote (SPEC section 4).
//
// The work is split so that every decision is made by a pure function:
//
//	Snapshot (read disk)  ->  Plan (pure: targets x snapshot x state)  ->  Execute (write)
//
// Snapshot reads every file the targets and the recorded state mention and
// refuses symbolic links that would carry a write out of an agent's
// workspace. Plan decides, file by file, the new bytes of every file and the
// next state; any conflict makes the plan unexecutable, so a conflict means
// zero writes. Execute writes backups first, then the files (temp + fsync +
// rename, in parallel, directories first), then deletions, and the state
// last. Everything runs under the workspace lock (.actant/lock).
//
// Call order for callers (apply, watch, proxy): load the config, sync the
// hub (Options.Prepare is the hook for it), render, reconcile. Apply does
// the last three steps.
package reconcile

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/actctl/actctl/materialize"
)

// Names inside the workspace's metadata directory.
const (
	// MetaDir is the directory, in the workspace root, holding state.json,
	// the lock and backups. The renderer refuses to write into it.
	MetaDir = ".actant"
	// StateFile records what the last apply wrote.
	StateFile = "state.json"
	// PendingFile is the journal of an apply in progress: the state that
	// apply will record when it finishes. It exists only while an apply
	// writes; finding it means the last apply was killed, and the next one
	// uses it to recognise the files that apply already wrote (see
	// recoverState), so a kill -9 at any point converges.
	PendingFile = "state.pending.json"
	// LockFile serialises apply and proxy on one workspace.
	LockFile = "lock"
	// BackupDir holds users' files that overwrite or --force replaced.
	BackupDir = "backup"
)

// StateVersion is the format version of state.json.
const StateVersion = 1

// State is the content of .actant/state.json: per agent, every entry the
// last apply manages, with the digest of what it wrote, so the next apply
// can tell a hand edit (drift) from its own output and undo exactly its own
// changes on prune.
type State struct {
	Version int `json:"version"`
	// ConfigDigest is the digest of the rendered targets of the last apply.
	ConfigDigest string `json:"configDigest,omitempty"`
	// LockDigest is the digest of actant.lock at the last apply (set by the
	// caller through Options.LockDigest; empty without a hub).
	LockDigest string                 `json:"lockDigest,omitempty"`
	Agents     map[string]*AgentState `json:"agents"`
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
	Format string `json:"format,omitempty"`
	// Sep is what block.Upsert inserted before the block; prune removes
	// exactly these bytes again.
	Sep string `json:"sep,omitempty"`
	// Seq orders the blocks of one file by insertion. Removing blocks in
	// reverse insertion order is what makes every separator come off
	// exactly (see planText).
	Seq  int        `json:"seq,omitempty"`
	Keys []KeyState `json:"keys,omitempty"`
	// Created: the file did not exist before actctl wrote it, so it is
	// deleted on prune once nothing but whitespace (or {}) is left.
	Created bool `json:"created,omitempty"`
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
}

// KeyState is one managed key.
type KeyState struct {
	Path []string `json:"path"`
	// SHA256 is the digest of the key's canonical JSON value as written.
	SHA256 string `json:"sha256"`
	// Want is the digest of the desired value as rendered (before
	// canonicalisation), for the fast path (see FileSHA).
	Want string `json:"want,omitempty"`
	// Seq orders the keys of one file by insertion (see Sep on EntryState).
	Seq int `json:"seq"`
	// Receipt is what the key library's Set reported (parent objects it
	// created, the text it replaced), handed back to its Delete on prune so
	// the user's file returns to its exact bytes.
	Receipt json.RawMessage `json:"receipt,omitempty"`
}

// NewState returns an empty state.
func NewState() *State { return &State{Version: StateVersion, Agents: map[string]*AgentState{}} }

func metaPath(root, name string) string { return filepath.Join(root, MetaDir, name) }

// ReadState reads the state file at path; a missing file is an empty state.
func ReadState(path string) (*State, []byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewState(), nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read state: %w", err)
	}
	st, err := parseState(data)
	if err != nil {
		return nil, nil, fmt.Errorf("read state %s: %w", path, err)
	}
	return st, data, nil
}

func parseState(data []byte) (*State, error) {
	st := NewState()
	if err := json.Unmarshal(data, st); err != nil {
		return nil, err
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
func (s *State) Encode() []byte {
	for _, a := range s.Agents {
		sortEntryStates(a.Entries)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		panic(fmt.Sprintf("reconcile: encoding state: %v", err)) // only plain data
	}
	return b.Bytes()
}

func sortEntryStates(es []EntryState) {
	sort.Slice(es, func(i, j int) bool {
		if es[i].Path != es[j].Path {
			return es[i].Path < es[j].Path
		}
		return es[i].Mode < es[j].Mode
	})
}

func (s *State) clone() *State {
	out := &State{Version: s.Version, ConfigDigest: s.ConfigDigest, LockDigest: s.LockDigest, Agents: map[string]*AgentState{}}
	for n, a := range s.Agents {
		out.Agents[n] = &AgentState{Dir: a.Dir, Entries: append([]EntryState(nil), a.Entries...)}
	}
	return out
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// TargetsDigest is a digest of everything the targets want on disk; it is
// recorded as the state's ConfigDigest so callers can tell cheaply whether
// the rendered config changed since the last apply.
func TargetsDigest(targets []*materialize.Target) string {
	h := sha256.New()
	for _, t := range targets {
		fmt.Fprintf(h, "agent %q %q %q\n", t.Agent, t.Dir, t.Conflict)
		for _, e := range t.Entries {
			fmt.Fprintf(h, "%q %s %s %s %s\n", e.Path, e.Mode, e.Style, e.Format, sum(e.Content))
			for _, k := range e.Keys {
				fmt.Fprintf(h, " %q %s\n", k.Path, sum(k.Value))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
