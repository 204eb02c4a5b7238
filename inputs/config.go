package inputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"time"

	"github.com/actctl/actctl/internal/layout"
)

// The config cache (docs/design.md, "The config cache") keeps, in
// .actant/config.cache, a snapshot of the config's CUE evaluation
// (schema.Snapshot) with the stat data of every file that evaluation
// read (the root's *.cue files, cue.mod/), the actctl build and the
// environment CUE reads. Any command that loads the config takes the
// snapshot when all of them are unchanged, and evaluates otherwise. Skill
// files are not part of it: every load reads them again.

// configVersion is the format version of config.cache; 2: the whole
// file's sha256 trailer instead of the snapshot's in the header; 3: the
// trailer is a seal (see seal).
const configVersion = 3

// configHeader is the first line of config.cache; the stat table, the
// snapshot and the trailer (see seal) follow.
type configHeader struct {
	Version int               `json:"version"`
	Build   string            `json:"build"`
	Root    string            `json:"root"`
	Env     map[string]string `json:"env"`
}

// ConfigKey is the stat data of the files the config's evaluation reads,
// taken before a load, to save that load's snapshot under.
type ConfigKey struct {
	root, home string
	stats      []Stat
	start      time.Time
}

// ConfigSnapshot returns the snapshot cached for the workspace at root,
// with actctl home home (which keeps the key of its seal), when nothing
// its evaluation read has changed; otherwise nil and why. key is what to
// save a new snapshot under (nil when that cannot be: unreadable inputs,
// or stat data that cannot be trusted).
func ConfigSnapshot(root, home string) (snap []byte, key *ConfigKey, why string) {
	start := time.Now()
	var stats []Stat
	err := addCUE(root, func(p string, lstat, presence bool) error {
		st, err := statOf(p, lstat, presence)
		stats = append(stats, st)
		return err
	})
	if err != nil {
		return nil, nil, err.Error()
	}
	if Identity() != "" && statComplete {
		key = &ConfigKey{root: root, home: home, stats: stats, start: start}
	}
	b, err := readRegular(layout.Path(root, layout.ConfigCache))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, key, "no config cache"
	}
	if err != nil {
		return nil, key, err.Error()
	}
	mk, why := cacheKey(root, home, false)
	if mk == nil {
		return nil, key, "config cache: " + why
	}
	snap, why = cachedSnapshot(root, mk, b, stats)
	return snap, key, why
}

// cachedSnapshot returns the snapshot in the cache file b when it was
// sealed under key, saved for root by this build, in this environment,
// from files whose stat data is now stats.
func cachedSnapshot(root string, key, b []byte, stats []Stat) ([]byte, string) {
	b, ok := unseal(key, b)
	if !ok {
		return nil, "config cache: damaged or forged (it does not match its seal)"
	}
	head, rest, ok := bytes.Cut(b, []byte{'\n'})
	var h configHeader
	if !ok || json.Unmarshal(head, &h) != nil {
		return nil, "config cache: unreadable"
	}
	switch {
	case h.Version != configVersion:
		return nil, fmt.Sprintf("config cache: version %d", h.Version)
	case h.Build != Identity():
		return nil, "config cache: another actctl build"
	case h.Root != root:
		return nil, "config cache: made for " + h.Root
	case !maps.Equal(h.Env, environment()):
		return nil, "config cache: the environment changed"
	}
	rec, snap, err := parseTable(rest)
	if err != nil {
		return nil, "config cache: " + err.Error()
	}
	if why := compare(rec, stats); why != "" {
		return nil, why
	}
	return snap, ""
}

// Settled reports whether no input of the load k was taken for was
// modified while that load ran (markRacy): only then may Save write the
// snapshot. A nil k is not.
func (k *ConfigKey) Settled() bool {
	if k == nil {
		return false
	}
	for i := range k.stats {
		if k.stats[i].markRacy(k.start); k.stats[i].Racy {
			return false
		}
	}
	return true
}

// Save caches snap, the snapshot of the load that k was taken for, when
// the workspace has been applied (its state exists: nothing is written
// into a workspace actctl does not manage yet) and no input was modified
// while that load ran (racy stat data: see markRacy).
func (k *ConfigKey) Save(snap func() ([]byte, error)) error {
	if k == nil {
		return nil
	}
	if _, err := os.Stat(layout.Path(k.root, layout.State)); err != nil {
		return nil
	}
	if !k.Settled() {
		return nil
	}
	mk, why := cacheKey(k.root, k.home, true)
	if mk == nil {
		return fmt.Errorf("config cache: not written: %s", why)
	}
	s, err := snap()
	if err != nil {
		return fmt.Errorf("config cache: %w", err)
	}
	head, err := json.Marshal(configHeader{Version: configVersion, Build: Identity(), Root: k.root, Env: environment()})
	if err != nil {
		return fmt.Errorf("config cache: %w", err)
	}
	b := appendTable(append(head, '\n'), k.stats)
	if err := writeSealed(layout.Path(k.root, layout.ConfigCache), seal(mk, append(b, s...))); err != nil {
		return fmt.Errorf("config cache: %w", err)
	}
	return nil
}
