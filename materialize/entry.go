// Package materialize renders a resolved agent into the desired entries of
// its backend's native files. It does no I/O on the agent's workspace: the
// reconciler compares the entries with what is on disk and in the state.
//
// Rendering is driven by the backend's schema.Files layout, never by the
// backend's name, so a backend defined entirely in CUE renders like a
// built-in one. The only tool knowledge in code is the small tables of
// MCP dialects (mcp.go), permission dialects (perm.go, perm_cursor.go),
// command formats (commands.go) and sub-agent formats (subagents.go);
// docs/formats.md lists every native format with its source.
//
// Entry.Content and Key.Value may share memory between agents and with the
// config (identical skill files are rendered once per RenderAll): treat
// them as read-only.
package materialize

import "encoding/json"

// Mode is how actctl owns an entry (README, "What apply writes, and what
// it never touches").
type Mode string

const (
	// ModeFile: the whole file is actctl's.
	ModeFile Mode = "file"
	// ModeBlock: one delimited block inside a text file the user may edit.
	ModeBlock Mode = "block"
	// ModeKeys: some keys inside a structured (JSON/TOML) file the user may edit.
	ModeKeys Mode = "keys"
	// ModeDir: a directory actctl creates (e.g. logs/); removed on prune when empty.
	ModeDir Mode = "dir"
)

// Block comment styles.
const (
	StyleHTML = "html" // <!-- BEGIN actctl agent=NAME --> ... <!-- END actctl agent=NAME -->
	StyleHash = "hash" // # BEGIN actctl agent=NAME ... # END actctl agent=NAME
)

// Entry is one desired piece of one file in an agent's workspace.
type Entry struct {
	// Path is slash-separated, relative to Target.Dir, clean, and never
	// absolute or escaping (checked by Render).
	Path string `json:"path"`
	Mode Mode   `json:"mode"`
	// Content: ModeFile, the whole file; ModeBlock, the block body between
	// the markers (ending in a newline).
	Content []byte `json:"content,omitempty"`
	// Exec: ModeFile, the file is executable (a skill's script): written
	// with mode 0755 instead of 0644, and a mode change is a change.
	Exec bool `json:"exec,omitempty"`
	// Style: ModeBlock comment style.
	Style string `json:"style,omitempty"`
	// Shared: ModeBlock, the block belongs to the file, not to the agent
	// (the .gitignore block): one block per file, markers without an
	// agent name, holding the union of the lines of every agent that
	// wants it there (reconcile plans the union; docs/design.md).
	Shared bool `json:"shared,omitempty"`
	// Format: ModeKeys, "json" or "toml".
	Format string `json:"format,omitempty"`
	// Keys: ModeKeys, the managed keys with their values.
	Keys []Key `json:"keys,omitempty"`
	// Source: a block whose body is exactly one prompt's text, verbatim
	// (no variables filled in): that prompt's config path
	// (prompts."NAME".content), so a hand edit of the block can name where
	// its text lives and `actctl import --update` can take it back
	// (docs/import.md, "Editing imported text").
	Source string `json:"-"`
	// skill: for a file of an Agent Skills directory, that directory
	// (<dir>/<name>), so RenderAll can share skills between agents.
	skill string
}

// Key is one managed key: a path of object keys / table names from the
// document root, and its value as canonical JSON (encoding/json output,
// maps with sorted keys). For TOML files the value is converted.
type Key struct {
	Path  []string        `json:"path"`
	Value json.RawMessage `json:"value"`
}

// Target is everything one agent wants on disk.
type Target struct {
	Agent string `json:"agent"`
	// Dir is the absolute workspace directory of the agent.
	Dir string `json:"dir"`
	// Conflict is the workDirConflict policy for files actctl does not own.
	Conflict string `json:"conflict"`
	// Entries are sorted by Path, then Mode.
	Entries []Entry `json:"entries"`
	// Warnings are non-fatal notes (e.g. a permission preset the backend
	// cannot express).
	Warnings []string `json:"warnings,omitempty"`
	// TrustPaths and TrustNotes are the backend's trust gate
	// (schema.Trust): after writing an entry under one of the paths,
	// apply says TrustNotes[path], with {dir} filled here and {files} by
	// apply.
	TrustPaths []string          `json:"trustPaths,omitempty"`
	TrustNotes map[string]string `json:"trustNotes,omitempty"`
	// skillDirs are the skill directories the agent's tool reads: its own
	// layout's dir, then the layout's reads.
	skillDirs []string
	// instructions are the instruction files the agent's blocks go into
	// (Files.Instructions), and rules names its permissions in words
	// (permissionsWord): sharedInstructions compares them across agents.
	instructions []string
	rules        string
}

// Find returns the target's entry at the slash-separated path, or nil.
// Entries are sorted by path, so this is a binary search.
func (t *Target) Find(path string) *Entry {
	lo, hi := 0, len(t.Entries)
	for lo < hi {
		m := (lo + hi) / 2
		if t.Entries[m].Path < path {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.Entries) && t.Entries[lo].Path == path {
		return &t.Entries[lo]
	}
	return nil
}

// Lookup returns the value of the managed key at keyPath in the ModeKeys
// entry e, or nil when e does not manage that key.
func (e *Entry) Lookup(keyPath ...string) json.RawMessage {
	for _, k := range e.Keys {
		if len(k.Path) != len(keyPath) {
			continue
		}
		same := true
		for i := range k.Path {
			if k.Path[i] != keyPath[i] {
				same = false
				break
			}
		}
		if same {
			return k.Value
		}
	}
	return nil
}
