// Package inputs is the fast path of a plain `actctl apply`: after an
// apply that reported nothing but its changes and the warnings its inputs
// cause, Save records in .actant/inputs.rec
// (see internal/layout) everything that apply's result depended on — the
// actctl build, the workspace root, the actctl home, the environment the
// loader reads, and the stat data of every file the config load read —
// with the digest of the state it wrote. The next plain apply calls Check:
// when every recorded input is unchanged (a stat walk: no CUE evaluation,
// no hub, no rendering) and every file the state records still holds what
// apply wrote, the normal path would find nothing to do, and apply prints
// those warnings and "no changes" without evaluating anything. On any doubt Check gives the
// reason and apply takes the normal path. See docs/design.md, "The apply
// fast path". The record and the config cache (config.go) are sealed
// under a key of the user's actctl home, so that an agent that can write
// the workspace cannot forge them (key.go; docs/design.md, "How the
// caches are protected").
package inputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/actctl/actctl/internal/layout"
	"github.com/actctl/actctl/reconcile"
)

// version is the format version of inputs.rec; another one is ignored.
// 2: the stat data of state.json and actant.owned (StateStat, OwnedStat).
// 3: the sha256 trailer; 4: the trailer is a seal (see seal); 5: the
// agents (see Agent) after the stat tables.
const version = 5

// Sources are the inputs of one apply that only the loaded config knows;
// the fixed ones (the root's *.cue files, cue.mod/, actant.lock,
// .actant/adhoc.json, git's index) are added by gather.
type Sources struct {
	// Root is the workspace root, Home the actctl home in use.
	Root string `json:"root"`
	Home string `json:"home"`
	// Trees are directories every file under which the config read (the
	// directories of dir skills): a file added there is a change.
	Trees []string `json:"trees,omitempty"`
	// Files are single files the config read: file skills, and the
	// markers of the hub trees it used (a tree is extracted once per
	// commit and never changed; its marker is rewritten when it is).
	Files []string `json:"files,omitempty"`
	// Agents are the agents the apply rendered, each with where its
	// runtime record lives (what `status` reads of them; see Agent).
	Agents []Agent `json:"-"`
}

// Agent is one agent an apply rendered, as `status` lists it without
// loading the config: its name, its directory (as the state records
// it) and its runtime record (runrecord.Path).
type Agent struct {
	Name   string `json:"n"`
	Dir    string `json:"d"`
	Record string `json:"r"`
}

// Record is the content of .actant/inputs.rec: a line of JSON, then
// Stats and Outputs as stat tables (see statTable), then a line of JSON
// with Sources.Agents (decoded only by Agents: the fast path of apply
// does not need them), then the trailer (see seal).
type Record struct {
	Version int               `json:"version"`
	Build   string            `json:"build"`
	Sources Sources           `json:"sources"`
	Env     map[string]string `json:"env"`
	Stats   statTable         `json:"-"`
	// State is the sha256 of the state.json that apply left; StateStat
	// its stat data, which alone vouches for it unless racy.
	State     string `json:"state"`
	StateStat Stat   `json:"stateStat"`
	// Outputs are the stat data of the files the state records: one as
	// recorded still holds what that apply verified or wrote. A racy one
	// is hashed again, and Hashed says what it must hold.
	Outputs statTable `json:"-"`
	Hashed  []Hashed  `json:"hashed,omitempty"`
	// Owned is the state's digest of actant.owned (State.Owned), OwnedStat
	// its stat data (Missing without one), as for State.
	Owned     string `json:"owned,omitempty"`
	OwnedStat Stat   `json:"ownedStat"`
	// Said is what that apply printed besides its changes, which the same
	// inputs make every apply print again.
	Said Said `json:"said"`
	// agents is the agents line as read (see Agents).
	agents []byte
}

// Said are the warnings an apply printed that follow from its inputs
// alone: the config's (schema's validation) and the renderer's.
type Said struct {
	Config []string `json:"config,omitempty"`
	Render []string `json:"render,omitempty"`
	// Status are what a load for `status` prints: those of Config it
	// prints (not those of deploy targets and schedules, which only the
	// checking commands print), then the ad-hoc agents it ignored.
	Status []string `json:"status,omitempty"`
}

// path is the record's place in the workspace at root.
func path(root string) string { return layout.Path(root, layout.Inputs) }

// Save records the inputs of the apply that started at start and just
// succeeded, leaving the state st in state.json, sum the sha256 of its
// bytes (reconcile.Result.LeftState): the file is not read again unless
// it is still those bytes, then not decoded. A file modified since start
// (or within the file system's timestamp granularity of it) is recorded
// as racy: its stat data cannot tell whether the apply read its old or
// its new content, so the next Check takes the normal path (which
// records it again, then settled). Without a state (no agents) nothing
// is recorded. A record that is still right is not written again. A
// record gone stale (an apply that reported something, or failed,
// records nothing) is harmless: what made the later run differ changed
// the stat data of an input or the state, which Check compares; with no
// agents left, apply removes it with the rest of .actant. It returns
// when the inputs it recorded racy settle (zero: none was): an apply
// that starts then records them settled (`up` and `apply --watch` run
// one: workspace.Watch).
func Save(src Sources, said Said, start time.Time, st *reconcile.State, sum string) (settles time.Time, err error) {
	build := Identity()
	if build == "" || !statComplete || st == nil {
		return settles, nil
	}
	key, _ := cacheKey(src.Root, src.Home, true)
	if key == nil {
		return settles, nil // no key to seal with: no record (the normal path runs)
	}
	src.Files = notWritten(src.Files, st)
	stats, err := gather(src)
	if err != nil {
		return settles, fmt.Errorf("record inputs: %w", err)
	}
	for i := range stats {
		if stats[i].markRacy(start); stats[i].Racy && stats[i].settlesAt().After(settles) {
			settles = stats[i].settlesAt()
		}
	}
	racy := !settles.IsZero()
	rec := Record{Version: version, Build: build, Sources: src, Env: environment(), Stats: stats, State: sum, Said: said}
	// With an input racy (actant.cue saved just before this apply),
	// Check stops at it before it looks at the outputs: they are not
	// settled or recorded, which would cost a stat of each and a read of
	// those just written (docs/benchmarks.md, "One edit of actant.cue").
	if !racy {
		if why := rec.outputs(src.Root, start, st); why != "" {
			// Changed meanwhile, or not all as apply left them: nothing
			// to vouch for (the next apply reports it).
			return settles, nil
		}
	}
	b, err := rec.encode()
	if err != nil {
		return settles, fmt.Errorf("record inputs: %w", err)
	}
	b = seal(key, b)
	if old, err := readRegular(path(src.Root)); err == nil && bytes.Equal(old, b) {
		return settles, nil
	}
	err = writeSealed(path(src.Root), b)
	if errors.Is(err, fs.ErrNotExist) {
		// Save runs after apply released the workspace lock: a concurrent
		// apply holding it removed our temp file as a leftover (or .actant
		// itself). It records its own inputs; without ours the next apply
		// takes the normal path.
		return settles, nil
	}
	return settles, err
}

// Check reports why a plain apply in the workspace at root, with actctl
// home home, must take the normal path; "" when the normal path would
// find nothing to change and print nothing but said (the warnings the
// recorded apply printed). It writes nothing.
func Check(root, home string) (said Said, why string) {
	rec, _, why := current(root, home)
	if why != "" {
		return said, why
	}
	return rec.Said, outputsUnchanged(root, rec)
}

// current is the record of the workspace at root, with the key that
// sealed it, when the run and every recorded input are as recorded;
// else why not.
func current(root, home string) (*Record, []byte, string) {
	b, err := readRegular(path(root))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, "no record of the last apply's inputs"
	}
	if err != nil {
		return nil, nil, err.Error()
	}
	key, why := cacheKey(root, home, false)
	rec, err := decode(key, b)
	if err != nil {
		if other := claimedHome(b); other != home && other != "" {
			// Sealed under another home's key, as its record says.
			return nil, nil, "recorded with the actctl home " + other
		}
		if key == nil {
			return nil, nil, why
		}
		return nil, nil, fmt.Sprintf("%s: %v", path(root), err)
	}
	if why := rec.sameRun(root, home); why != "" {
		return nil, nil, why
	}
	now, err := gather(rec.Sources)
	if err != nil {
		return nil, nil, err.Error()
	}
	if why := compare(rec.Stats, now); why != "" {
		return nil, nil, why
	}
	return rec, key, ""
}

func (rec *Record) encode() ([]byte, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	b = appendTable(append(b, '\n'), rec.Stats)
	b = appendTable(b, rec.Outputs)
	agents := rec.agents // a decoded record's, as read (see Refresh)
	if agents == nil {
		var err error
		if agents, err = json.Marshal(rec.Sources.Agents); err != nil {
			return nil, err
		}
	}
	return append(append(b, agents...), '\n'), nil
}

func decode(key, b []byte) (*Record, error) {
	if key == nil {
		return nil, errors.New("no key to check its seal with")
	}
	b, ok := unseal(key, b)
	if !ok {
		return nil, errors.New("damaged or forged: it does not match its seal")
	}
	head, rest, ok := bytes.Cut(b, []byte{'\n'})
	if !ok {
		return nil, errors.New("no stat tables")
	}
	rec := &Record{}
	if err := json.Unmarshal(head, rec); err != nil {
		return nil, err
	}
	if rec.Version != version {
		return rec, nil // sameRun says so
	}
	var err error
	if rec.Stats, rest, err = parseTable(rest); err != nil {
		return nil, err
	}
	if rec.Outputs, rest, err = parseTable(rest); err != nil {
		return nil, err
	}
	line, after, ok := bytes.Cut(rest, []byte{'\n'})
	if !ok || len(after) != 0 {
		return nil, errors.New("no agents line, or trailing data")
	}
	rec.agents = line
	return rec, nil
}

// claimedHome is the actctl home the record b names, read without
// checking its seal: only to say why a record that fails it is not
// used.
func claimedHome(b []byte) string {
	head, _, _ := bytes.Cut(b, []byte{'\n'})
	var rec Record
	if json.Unmarshal(head, &rec) != nil {
		return ""
	}
	return rec.Sources.Home
}

// sameRun compares what is not a file: version, build, root, home and
// environment.
func (rec *Record) sameRun(root, home string) string {
	switch {
	case rec.Version != version:
		return fmt.Sprintf("record version %d", rec.Version)
	case rec.Build != Identity():
		return "another actctl build recorded the inputs"
	case rec.Sources.Root != root:
		return "recorded for the workspace " + rec.Sources.Root
	case rec.Sources.Home != home:
		return "recorded with the actctl home " + rec.Sources.Home
	case !maps.Equal(rec.Env, environment()):
		return "the environment changed"
	}
	return ""
}

// environment is what the config load reads from the environment: HOME
// (workDir "~/", the home-directory check, the default actctl home) and
// CUE's own variables (registry, cache, experiments).
func environment() map[string]string {
	env := map[string]string{"HOME": os.Getenv("HOME")}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "CUE_") {
			env[k] = v
		}
	}
	return env
}

// notWritten is files without those st records as outputs. A file that
// apply reads and also writes (a CLAUDE.md, whose own text decides
// whether apply imports AGENTS.md into it) is checked as an output, by
// the stat data apply left; recorded as an input it would be racy after
// every apply that wrote it, and no apply would take the fast path.
func notWritten(files []string, st *reconcile.State) []string {
	if len(files) == 0 {
		return files
	}
	written := map[string]bool{}
	for _, a := range st.Agents {
		for _, e := range a.Entries {
			written[filepath.Join(a.Dir, filepath.FromSlash(e.Path))] = true
		}
	}
	var out []string
	for _, f := range files {
		if !written[f] {
			out = append(out, f)
		}
	}
	return out
}
