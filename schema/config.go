package schema

import (
	"cuelang.org/go/cue"
	"cuelang.org/go/cue/token"
)

// Config is the decoded, validated workspace configuration: the single
// model every other package works from. Maps are keyed by component name;
// hub components are keyed "source@name" once the hub package has merged
// them in (see hub.Merge).
type Config struct {
	// Root is the absolute workspace root (the directory holding actant.cue).
	Root string `json:"-"`
	// Home is the absolute $ACTANT_HOME.
	Home string `json:"-"`
	// Files are the absolute paths of the .cue files that were loaded.
	Files []string `json:"-"`

	Hub        map[string]HubSource    `json:"hub,omitempty"`
	Backends   map[string]Backend      `json:"backends"`
	Archetypes map[string]Archetype    `json:"archetypes"`
	Skills     map[string]Skill        `json:"skills,omitempty"`
	Prompts    map[string]Prompt       `json:"prompts,omitempty"`
	Commands   map[string]SlashCommand `json:"commands,omitempty"`
	Ignore     map[string]Ignore       `json:"ignore,omitempty"`
	MCPServers map[string]MCPServer    `json:"mcpServers,omitempty"`
	Templates  map[string]Template     `json:"templates,omitempty"`
	Agents     map[string]Agent        `json:"agents,omitempty"`
	Hooks      map[string]Hook         `json:"hooks,omitempty"`
	Webhooks   map[string]Webhook      `json:"webhooks,omitempty"`
	// Plugins: the session plugins (plugins.go).
	Plugins map[string]Plugin `json:"plugins,omitempty"`
	// Deploy: the targets apply renders beyond one machine (model/deploy.go).
	Deploy *Deploy `json:"deploy,omitempty"`

	// Warnings found while loading (they do not stop anything).
	Warnings Diagnostics `json:"-"`

	// value is the evaluated CUE, kept to find the position of any field
	// for diagnostics raised after decoding.
	value cue.Value
	// pos holds positions of fields that do not come from CUE (hub
	// components point at their source file).
	pos map[string]token.Pos
	// evaluated is what CUE produced, kept for Snapshot; nil for a
	// config loaded from a snapshot.
	evaluated *evaluated
}
