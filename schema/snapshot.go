package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/token"
)

// A snapshot keeps what CUE's evaluation of a workspace produced — the
// decoded config before skill files are read and validation runs, the
// files loaded and the position of every field — so that a later load of
// the same files can skip CUE (docs/design.md, "The config cache"). When
// a snapshot may be used is its keeper's business (package inputs): the
// snapshot itself knows nothing of the files' state.

// snapshotVersion is the format version; another one is refused.
const snapshotVersion = 1

// evaluated is what an evaluation left on a Config for Snapshot.
type evaluated struct {
	export []byte               // the value's JSON export, as decoded
	pos    map[string]token.Pos // positions recorded from the syntax
	// snap, once Release made it, is the snapshot: export and pos are
	// then nil, and so is the Config's value.
	snap []byte
}

type snapshot struct {
	Version int             `json:"version"`
	Files   []string        `json:"files"`
	Config  json.RawMessage `json:"config"`
	// Sources are the files positions point into; Paths[i] is at
	// offset At[2i+1] of Sources[At[2i]].
	Sources []snapSource `json:"sources"`
	Paths   []string     `json:"paths"`
	At      []int        `json:"at"`
}

type snapSource struct {
	Name  string `json:"name"`
	Size  int    `json:"size"`
	Lines []int  `json:"lines"`
}

// Snapshot encodes what the evaluation of c produced. It fails for a
// config that was itself loaded from a snapshot.
func (c *Config) Snapshot() ([]byte, error) {
	if c.evaluated != nil && c.evaluated.snap != nil {
		return c.evaluated.snap, nil
	}
	if c.evaluated == nil || !c.value.Exists() {
		return nil, errors.New("snapshot: the config was not evaluated from CUE")
	}
	b, _, err := c.encodeSnapshot()
	return b, err
}

// Release makes c's snapshot now (what Snapshot returns from then on)
// and lets go of CUE's evaluated value, the larger half of the memory a
// loaded config holds (docs/benchmarks.md, "Cold apply at 10,000
// agents"): positions are then looked up in the table the snapshot
// keeps, as in a config loaded from one, which finds every position the
// value gave (TestSnapshotRoundTrip, TestReleaseKeepsPositions). It
// does nothing for a config not evaluated from CUE, or already released.
func (c *Config) Release() error {
	if c.evaluated == nil || c.evaluated.snap != nil || !c.value.Exists() {
		return nil
	}
	b, pos, err := c.encodeSnapshot()
	if err != nil {
		return err
	}
	c.pos, c.value, c.evaluated = pos, cue.Value{}, &evaluated{snap: b}
	return nil
}

// encodeSnapshot encodes the snapshot of c, which holds its evaluated
// value, and returns it with the position of every field (what
// LoadSnapshot restores).
func (c *Config) encodeSnapshot() ([]byte, map[string]token.Pos, error) {
	pos := c.evaluated.pos
	merged := make(map[string]token.Pos, len(pos))
	for k, p := range pos {
		if p.IsValid() {
			merged[k] = p
		}
	}
	addValuePositions(c.value, nil, merged)
	s := snapshot{Version: snapshotVersion, Files: c.Files, Config: c.evaluated.export}
	files := map[*token.File]int{}
	for path, p := range merged {
		f := p.File()
		if f == nil {
			delete(merged, path) // as LoadSnapshot would not have it
			continue
		}
		i, ok := files[f]
		if !ok {
			i = len(s.Sources)
			files[f] = i
			s.Sources = append(s.Sources, snapSource{Name: f.Name(), Size: f.Size(), Lines: f.Lines()})
		}
		s.Paths = append(s.Paths, path)
		s.At = append(s.At, i, p.Offset())
	}
	b, err := json.Marshal(s)
	return b, merged, err
}

// addValuePositions records, for every field and list element under v
// that has no position yet, the position the evaluated value gives it
// when that is in the user's files: what Pos looks up in the value of a
// config evaluated from CUE.
func addValuePositions(v cue.Value, sel []cue.Selector, out map[string]token.Pos) {
	var children []cue.Selector
	var values []cue.Value
	switch v.IncompleteKind() {
	case cue.StructKind:
		it, err := v.Fields()
		if err != nil {
			return
		}
		for it.Next() {
			children, values = append(children, it.Selector()), append(values, it.Value())
		}
	case cue.ListKind:
		it, err := v.List()
		if err != nil {
			return
		}
		for i := 0; it.Next(); i++ {
			children, values = append(children, cue.Index(i)), append(values, it.Value())
		}
	default:
		return
	}
	for i, child := range children {
		path := append(sel[:len(sel):len(sel)], child)
		key := cue.MakePath(path...).String()
		if _, ok := out[key]; !ok {
			if p := values[i].Pos(); p.IsValid() && filepath.Base(p.Filename()) != schemaFile {
				out[key] = p
			}
		}
		addValuePositions(values[i], path, out)
	}
}

// LoadSnapshot loads the workspace rooted at root with actctl home home
// from a snapshot of its evaluation: as LoadDir, without CUE. The caller
// vouches that the files the snapshot was made from are unchanged.
func LoadSnapshot(root, home string, b []byte) (*Config, error) {
	var s snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("config snapshot: %w", err)
	}
	if s.Version != snapshotVersion {
		return nil, fmt.Errorf("config snapshot: version %d, want %d", s.Version, snapshotVersion)
	}
	if len(s.At) != 2*len(s.Paths) {
		return nil, errors.New("config snapshot: positions do not match their paths")
	}
	cfg := &Config{Root: root, Home: home, Files: s.Files}
	if err := decodeJSON(s.Config, cfg); err != nil {
		return nil, fmt.Errorf("config snapshot: %w", err)
	}
	cfg.normalize()
	if err := cfg.restorePositions(&s); err != nil {
		return nil, err
	}
	return cfg.finish()
}

// restorePositions rebuilds the position table of s.
func (c *Config) restorePositions(s *snapshot) error {
	files := make([]*token.File, len(s.Sources))
	for i, src := range s.Sources {
		files[i] = token.NewFile(src.Name, -1, src.Size)
		if !files[i].SetLines(src.Lines) {
			return fmt.Errorf("config snapshot: bad line table for %s", src.Name)
		}
	}
	c.pos = make(map[string]token.Pos, len(s.Paths))
	for i, path := range s.Paths {
		f, off := s.At[2*i], s.At[2*i+1]
		if f < 0 || f >= len(files) || off < 0 || off > s.Sources[f].Size {
			return fmt.Errorf("config snapshot: bad position for %s", path)
		}
		c.pos[path] = files[f].Pos(off, token.NoRelPos)
	}
	return nil
}
