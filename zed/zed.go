// Package zed writes actctl's entries into Zed's settings.json
// (agent_servers, each an `actctl proxy` command) and owns only what it
// wrote: $ACTANT_HOME/zed.json records, per settings file, each entry's
// workspace, digest and receipt, so an entry is replaced or removed only
// while it is actctl's for that workspace and unedited (README, "Editors:
// ACP proxy and Zed"). The settings file is edited key by key with
// internal/jsonkeys, so the user's comments and formatting stay.
package zed

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/jsonkeys"
	"github.com/actctl/actctl/internal/userkey"
)

// Entry is one Zed agent_servers entry (a custom ACP agent server).
type Entry struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// ProxyEntry is the entry that serves agent name of the workspace root:
// `actctl proxy` with the workspace root and the home in use spelled out,
// so that the proxy Zed starts (from any directory, with any environment) finds the
// same workspace and the same instances. extra are more proxy arguments.
func ProxyEntry(self, root, home, name string, extra ...string) Entry {
	args := append([]string{"proxy", name}, extra...)
	return Entry{Type: "custom", Command: self, Args: append(args, "-C", root, "--home", home)}
}

// Written is one agent_servers entry `zed --write` wrote: the workspace
// it serves, the sha256 of its canonical value, and how to remove it.
type Written struct {
	Workspace string           `json:"workspace"`
	SHA256    string           `json:"sha256"`
	Receipt   jsonkeys.Receipt `json:"receipt"`
}

// Record is $ACTANT_HOME/zed.json: per Zed settings file (absolute
// path), the entries actctl wrote there. An entry is actctl's, and may be
// replaced or removed, only where this record says actctl wrote it, for
// this workspace, and it still holds what was written (docs: README
// "Editors: ACP proxy and Zed").
type Record struct {
	Settings map[string]map[string]Written `json:"settings"`
	// Ignored says why the record found was not trusted ("" when it
	// was, or when there was none).
	Ignored string `json:"-"`
}

// RecordFile is the record's name in the actctl home.
const RecordFile = "zed.json"

// recordKind is what the record's seal is for (internal/userkey).
const recordKind = "actctl zed"

// ReadRecord reads the record in home. It is trusted only when sealed
// with this user's key (docs/design.md, "What actctl trusts"): any other
// is an empty record, with why in Ignored, so that no file but one this
// user's actctl wrote can make it replace or remove an entry.
func ReadRecord(home string) (*Record, error) {
	p := filepath.Join(home, RecordFile)
	rec := &Record{}
	b, err := os.ReadFile(p)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("zed: read %s: %w", p, err)
	}
	if err == nil {
		key, _ := userkey.Key(home, false)
		if body, _, ok := userkey.UnsealJSON(key, recordKind, b); !ok {
			rec.Ignored = p + " is not sealed by this user's actctl (written elsewhere, or by an earlier actctl): ignored: the entries it names are taken as yours (remove those actctl wrote before from Zed's settings, or use --prefix, and write again)"
		} else if err := json.Unmarshal(body, rec); err != nil {
			return nil, fmt.Errorf("zed: read %s: %w", p, err)
		}
	}
	if rec.Settings == nil {
		rec.Settings = map[string]map[string]Written{}
	}
	return rec, nil
}

// Write writes the record into home, sealed with this user's key (made
// if missing).
func (r *Record) Write(home string) error {
	p := filepath.Join(home, RecordFile)
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if key, err := userkey.Key(home, true); err == nil {
		b = userkey.SealJSON(key, recordKind, b)
	}
	if _, err := atomicfile.MkdirAll(home); err != nil {
		return fmt.Errorf("zed: %w", err)
	}
	if err := atomicfile.Write(p, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("zed: write %s: %w", p, err)
	}
	return nil
}

// Plan is what --write changes in one settings file.
type Plan struct {
	Out       []byte             // the new settings content
	Written   map[string]Written // the record of this settings file after the write
	Removed   []string           // entries of this workspace no longer listed, removed
	Conflicts []string           // entries that are not actctl's to replace
}

// MergePlan merges entries (name -> value) of workspace root into the
// settings content, given what actctl wrote there before (written, may be
// nil). An existing entry is replaced only when it is actctl's for this
// workspace and unchanged; entries actctl wrote for this workspace that
// are no longer listed are removed, if unchanged. Nothing else is touched.
func MergePlan(content []byte, written map[string]Written, root string, entries map[string]json.RawMessage) (*Plan, error) {
	p := &Plan{Out: content, Written: map[string]Written{}}
	for name, w := range written {
		if w.Workspace != root {
			p.Written[name] = w
		}
	}
	for _, name := range slices.Sorted(maps.Keys(entries)) {
		key := []string{"agent_servers", name}
		cur, exists, err := jsonkeys.Get(content, key)
		if err != nil {
			return nil, err
		}
		w, ours := written[name]
		switch {
		case exists && !ours:
			p.Conflicts = append(p.Conflicts, fmt.Sprintf("agent_servers.%s is not an entry actctl wrote (your own?)", name))
			continue
		case exists && w.Workspace != root:
			p.Conflicts = append(p.Conflicts, fmt.Sprintf("agent_servers.%s serves the workspace %s", name, w.Workspace))
			continue
		case exists && sha256Hex(cur) != w.SHA256:
			p.Conflicts = append(p.Conflicts, fmt.Sprintf("agent_servers.%s was edited since actctl wrote it", name))
			continue
		}
		var rc jsonkeys.Receipt
		if p.Out, rc, err = jsonkeys.Set(p.Out, key, entries[name]); err != nil {
			return nil, err
		}
		if exists {
			rc = w.Receipt // the first write's receipt knows what to undo
		}
		canon, err := jsonkeys.Canonical(entries[name])
		if err != nil {
			return nil, err
		}
		p.Written[name] = Written{Workspace: root, SHA256: sha256Hex(canon), Receipt: rc}
	}
	return p, p.removeStale(written, root, entries)
}

// removeStale removes the entries actctl wrote for root that are no longer
// listed, where they still hold what actctl wrote.
func (p *Plan) removeStale(written map[string]Written, root string, entries map[string]json.RawMessage) error {
	for _, name := range slices.Sorted(maps.Keys(written)) {
		w := written[name]
		if _, listed := entries[name]; listed || w.Workspace != root {
			continue
		}
		key := []string{"agent_servers", name}
		cur, exists, err := jsonkeys.Get(p.Out, key)
		if err != nil {
			return err
		}
		if !exists || sha256Hex(cur) != w.SHA256 {
			continue // gone, or edited by hand: the user's now
		}
		if p.Out, err = jsonkeys.Delete(p.Out, key, w.Receipt); err != nil {
			return err
		}
		p.Removed = append(p.Removed, name)
	}
	return nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// SettingsPath is Zed's user settings file on this OS (see settingsPathFor).
func SettingsPath() (string, error) { return settingsPathFor(runtime.GOOS, os.Getenv) }
