package model

import (
	"encoding/json"

	"github.com/actctl/actctl/internal/frontmatter"
)

// HubSource is one git repository of components (README, "Hub: shared
// components from git, pinned").
type HubSource struct {
	URL      string   `json:"url"`
	Ref      *Ref     `json:"ref,omitempty"`
	Path     string   `json:"path,omitempty"`
	Interval string   `json:"interval,omitempty"`
	Auth     *HubAuth `json:"auth,omitempty"`
}

// Ref selects what a hub source tracks; exactly one field is set.
type Ref struct {
	Branch string `json:"branch,omitempty"`
	Tag    string `json:"tag,omitempty"`
	Commit string `json:"commit,omitempty"`
	Semver string `json:"semver,omitempty"`
}

// HubAuth names where credentials come from; the credentials themselves are
// never part of the config.
type HubAuth struct {
	TokenEnv   string `json:"tokenEnv,omitempty"`
	SSHKeyFile string `json:"sshKeyFile,omitempty"`
}

// Command is a program to start: used for a backend's acp and open modes.
type Command struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
	// OS holds per-GOOS replacements ("linux", "darwin", "windows").
	OS map[string]Command `json:"os,omitempty"`
}

// Backend modes.
const (
	ModeOpen    = "open"
	ModeResolve = "resolve"
	ModeACP     = "acp"
)

// Backend describes an agent tool as data: how to start it and where it
// reads its files. Built-ins are defined in schema/actant.cue.
type Backend struct {
	Description string `json:"description,omitempty"`
	// Modes narrows the modes the commands give (see ServedModes); nil
	// when the config does not say.
	Modes []string `json:"modes"`
	ACP   *Command `json:"acp,omitempty"`
	Open  *Command `json:"open,omitempty"`
	// Install is the command that installs the tool (InstallArgv);
	// InstallNote, prose, when no command does.
	Install     string `json:"install,omitempty"`
	InstallNote string `json:"installNote,omitempty"`
	Files       Files  `json:"files"`
	// Trust is the backend's trust gate, if any.
	Trust *Trust `json:"trust,omitempty"`
}

// Trust is a trust gate: the tool reads files under Paths (prefixes
// relative to the workspace) only in a trusted project; Notes[path], else
// Note, says what the user must do about the files under path, with {dir}
// standing for the agent's workspace directory and {files} for the files
// written (docs/formats.md "Trust gates").
type Trust struct {
	Paths []string          `json:"paths"`
	Note  string            `json:"note,omitempty"`
	Notes map[string]string `json:"notes,omitempty"`
	// When limits the note of a path to a file written under it that
	// sets When[path].Key to one of When[path].Values.
	When map[string]TrustWhen `json:"when,omitempty"`
}

// TrustWhen is the condition of a trust note: the key (a JSON path) of
// a file written and the values that call for the note.
type TrustWhen struct {
	Key    []string `json:"key"`
	Values []string `json:"values"`
}

// NoteFor is the note for the files under the trust path p.
func (t *Trust) NoteFor(p string) string {
	if n, ok := t.Notes[p]; ok {
		return n
	}
	return t.Note
}

// Files is a backend's file layout: where the materializer writes each kind
// of content, relative to the agent's workspace directory. An empty field
// means the backend does not read that kind of content.
type Files struct {
	// Instructions are text files that receive the agent's managed block
	// (prompts and description), e.g. ["CLAUDE.md"].
	Instructions []string `json:"instructions,omitempty"`
	// Skills: where skills go and in which format.
	Skills *DirLayout `json:"skills,omitempty"`
	// SubAgents: where sub-agent definitions go.
	SubAgents *DirLayout `json:"subAgents,omitempty"`
	// Prompts: where prompt files go, one per prompt (optional).
	Prompts *DirLayout `json:"prompts,omitempty"`
	// Rules: where skills with paths go, as path-scoped rules
	// (FormatInstructions, FormatCursorMDC, FormatClaudeRules); nil: they
	// stay skills.
	Rules *DirLayout `json:"rules,omitempty"`
	// Commands: where the template's commands (slash commands) go.
	Commands *DirLayout `json:"commands,omitempty"`
	// MCP: the structured file holding MCP servers.
	MCP *MCPFile `json:"mcp,omitempty"`
	// MCPFiles: more files holding the same MCP servers, for a tool whose
	// clients read different files (GitHub Copilot: VS Code's
	// .vscode/mcp.json, the Copilot CLI's .github/mcp.json).
	MCPFiles []MCPFile `json:"mcpFiles,omitempty"`
	// Permissions: the structured file holding permission settings.
	Permissions *PermissionsFile `json:"permissions,omitempty"`
	// Settings: the structured file a template's native settings for this
	// backend are merged into.
	Settings *SettingsFile `json:"settings,omitempty"`
	// Ignore: the file holding the paths the agent must not read.
	Ignore *IgnoreFile `json:"ignore,omitempty"`
	// SettingsFiles: more structured files for native settings, each
	// taking the top-level keys it lists (Cursor's .cursor/hooks.json:
	// version, hooks); the other keys go to Settings.
	SettingsFiles []SettingsFile `json:"settingsFiles,omitempty"`
	// Shadows: other tools' instruction files this tool reads only while
	// none of its own instruction files exists.
	Shadows *Shadows `json:"shadows,omitempty"`
}

// Shadows names instruction files a tool reads only while none of its own
// exists (Claude Code reads AGENTS.md only without a CLAUDE.md). When one
// of Files holds the user's text and the agent's instruction file holds
// none, the agent's block starts with Import, {path} replaced by that
// file's path relative to the instruction file's directory, so creating
// the instruction file does not hide it.
type Shadows struct {
	Files  []string `json:"files"`
	Import string   `json:"import,omitempty"`
}

// SettingsFile is the structured file holding a backend's native settings.
type SettingsFile struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// Keys: for one of Files.SettingsFiles, the top-level settings keys
	// that go to this file rather than to Files.Settings.
	Keys []string `json:"keys,omitempty"`
	// Ignored: top-level settings keys the tool does not read from this
	// file; a template that sets one gets Note as a warning.
	Ignored *IgnoredKeys `json:"ignored,omitempty"`
}

// IgnoredKeys are settings keys a tool does not read from a settings
// file, and the note that says so (docs/formats.md, "Settings").
type IgnoredKeys struct {
	// Keys: the top-level keys; "*" is every key the file gets.
	Keys []string `json:"keys"`
	Note string   `json:"note"`
}

// Skill formats (DirLayout.Format for skills).
const (
	FormatSkillDir  = "skill"    // <dir>/<name>/SKILL.md with Agent Skills frontmatter, plus sibling files
	FormatCursorMDC = "mdc"      // <dir>/<name>.mdc with description/alwaysApply frontmatter
	FormatMarkdown  = "markdown" // <dir>/<name>.md, plain
	// FormatInstructions: <dir>/<name>.instructions.md, GitHub Copilot's
	// path-specific instructions (description, applyTo); rules only
	FormatInstructions = "instructions"
	// FormatClaudeRules: <dir>/<name>.md, a Claude Code rule (a paths
	// list of globs); rules only
	FormatClaudeRules = "claude-rules"
	// FormatPathsRules: <dir>/<name>.md, a rule with description and a
	// paths list of globs (Cline's conditional rules, Qwen Code's rules);
	// rules only
	FormatPathsRules = "paths"
	// FormatSteering: <dir>/<name>.md, a Kiro steering file with
	// inclusion: fileMatch and a fileMatchPattern list; rules only
	FormatSteering = "steering"
	// FormatGlobTrigger: <dir>/<name>.md, a Devin (Windsurf) rule with
	// trigger: glob, globs (comma-separated) and description; rules only
	FormatGlobTrigger = "glob-trigger"
	// FormatGlobsRules: <dir>/<name>.md with a globs list of the globs
	// (Amp, which reads it where AGENTS.md mentions it); rules only
	FormatGlobsRules = "globs"
	FormatClaudeSub  = "claude" // <dir>/<name>.md with Claude Code sub-agent frontmatter
	FormatCodexSub   = "codex"  // <dir>/<name>.toml: Codex custom agent (name, description, developer_instructions)
	FormatGeminiSub  = "gemini" // <dir>/<name>.md: Gemini CLI sub-agent frontmatter (kind local, tools list)
	FormatCursorSub  = "cursor" // <dir>/<name>.md: Cursor sub-agent frontmatter (name, description, model)
	// FormatCopilotSub: <dir>/<name>.agent.md, a GitHub Copilot custom agent (name, description, tools list, model)
	FormatCopilotSub = "copilot"
	// FormatOpenCodeSub: <dir>/<name>.md, an OpenCode agent (description, mode: subagent, model)
	FormatOpenCodeSub = "opencode"
	// FormatDevinSub: <dir>/<name>/AGENT.md, a Devin custom sub-agent
	// profile (name, description, model, allowed-tools list)
	FormatDevinSub = "devin"
	// FormatAntigravitySub: <dir>/<name>.md, an Antigravity custom agent (name, description, tools list, model)
	FormatAntigravitySub = "antigravity"
	// FormatMarkdownSub: <dir>/<name>.md with Claude Code's sub-agent
	// frontmatter but no permissionMode (name, description, tools
	// comma-separated, model), for tools that read that frontmatter and
	// document no permission field (Junie).
	FormatMarkdownSub = "subagent"
	// FormatClineSub: <dir>/<name>.yaml, a Cline agent (Cline loads only
	// .yaml and .yml files there): the subagent frontmatter and body, with
	// the tools in Cline's own names and the model as modelId
	FormatClineSub = "cline"
	// FormatQwenSub: the subagent frontmatter with the tools in Qwen
	// Code's own tool names (read_file, run_shell_command, ...)
	FormatQwenSub = "qwen"
	// FormatKiroSub: <dir>/<name>.md, a Kiro agent profile (description,
	// model, tools: a list of Kiro's tool categories read, write, shell,
	// web)
	FormatKiroSub = "kiro"
	// FormatGooseSub: <dir>/<name>.md, a Goose custom agent (name,
	// description, model; body = its system prompt)
	FormatGooseSub = "goose"
	// FormatDeepagentsSub: <dir>/<name>/AGENTS.md, a Deep Agents CLI
	// sub-agent (name, description, model; body = its system prompt)
	FormatDeepagentsSub = "deepagents"
)

// DirLayout places one file (or directory) per component under Dir.
type DirLayout struct {
	Dir    string `json:"dir"`
	Format string `json:"format"`
	// Ext is the ending of each file's name for the one-file formats
	// (".prompt.md" for Copilot's prompt files); "" means the format's
	// own (".md", ".toml", ".mdc").
	Ext string `json:"ext,omitempty"`
	// Reads: for skills, the other tools' skill directories this tool
	// also reads (".agents/skills", ".claude/skills"); a skill another
	// agent in the same directory writes there, byte for byte the same, is
	// not written again.
	Reads []string `json:"reads,omitempty"`
	// Mention: for rules, a line the agent's instruction block gets for
	// each rule written, {path} replaced by the rule's path relative to
	// the instruction file ("@{path}": Amp reads a glob-scoped file only
	// when its AGENTS.md mentions it).
	Mention string `json:"mention,omitempty"`
}

// Structured file formats.
const (
	FormatJSON = "json"
	FormatTOML = "toml"
)

// Dialects of structured files: which tool's keys and entry shapes are
// written (see #MCPFile and #PermissionsFile in schema/actant.cue).
const (
	DialectClaude = "claude" // Claude Code: .mcp.json entries; settings.json "permissions"
	DialectCodex  = "codex"  // Codex config.toml: [mcp_servers.<name>]; sandbox_mode / approval_policy
	DialectGemini = "gemini" // Gemini CLI settings.json: mcpServers; general.defaultApprovalMode
	DialectCursor = "cursor" // Cursor mcp.json (MCP only)
	// DialectAntigravity: Antigravity .agents/mcp_config.json (MCP only; remote servers use serverUrl)
	DialectAntigravity = "antigravity"
	DialectGeneric     = "generic" // the common mcpServers shape (MCP only); the default
	// DialectVSCode: VS Code (GitHub Copilot) .vscode/mcp.json "servers"
	// entries; .vscode/settings.json "chat.tools.terminal.autoApprove"
	DialectVSCode = "vscode"
	// DialectOpenCode: OpenCode opencode.json: "mcp" entries; "permission"
	DialectOpenCode = "opencode"
	// DialectQwen: Qwen Code .qwen/settings.json mcpServers; remote
	// servers use httpUrl (streamable HTTP) or url (SSE) (MCP only)
	DialectQwen = "qwen"
	// DialectDevin: Devin .devin/config.json "permissions" in its scope
	// matchers (Read(), Write(), Exec(), Fetch()) (permissions only)
	DialectDevin = "devin"
	// DialectAmp: Amp .amp/settings.json "amp.permissions", an ordered
	// list of {tool, matches, action} rules (permissions only)
	DialectAmp = "amp"
	// DialectPi: Pi .pi/mcp.json "mcpServers" entries (MCP only; no SSE,
	// names [A-Za-z0-9_-], ${NAME} expanded in env and headers only)
	DialectPi = "pi"
	// DialectCopilot: GitHub Copilot CLI .github/mcp.json "mcpServers"
	// entries, each with a type ("local", "http", "sse") and tools
	// (MCP only)
	DialectCopilot = "copilot"
	// DialectGoose: a Goose plugin's .mcp.json "mcpServers" entries,
	// Claude Code's stdio shape; stdio only (MCP only)
	DialectGoose = "goose"
	// DialectZed: Zed's .zed/settings.json "context_servers" entries
	// (MCP only; args always written, no SSE).
	DialectZed = "zed"
	// DialectCrush: Crush's .crush.json "mcp" entries (MCP only; every
	// entry typed, stdio included).
	DialectCrush = "crush"
	// DialectKimi: Kimi Code's .kimi-code/mcp.json "mcpServers" entries
	// (MCP only; stdio and streamable HTTP, no SSE).
	DialectKimi = "kimi"
	// DialectGrok: Grok Build's .grok/config.toml [mcp_servers.<name>]
	// tables (MCP only; a literal env table, no env_vars).
	DialectGrok = "grok"
	// DialectRoo: Roo Code's and Zoo Code's .roo/mcp.json "mcpServers"
	// entries (MCP only; remote typed streamable-http or sse).
	DialectRoo = "roo"
)

// MCPFile is the structured file holding a backend's MCP servers.
type MCPFile struct {
	Path string `json:"path"`
	// Format is "json" or "toml".
	Format string `json:"format"`
	// Key is the top-level table holding the servers ("mcpServers",
	// "mcp_servers").
	Key string `json:"key"`
	// Dialect is the entry shape the tool reads; "" means generic.
	Dialect string `json:"dialect,omitempty"`
}

// PermissionsFile is the structured file holding a backend's permission
// settings, in the keys of one tool (Dialect: claude, codex or gemini).
type PermissionsFile struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Dialect string `json:"dialect"`
	// Rules, for the codex dialect: the file (relative to the workspace)
	// the allow/deny/ask rules of shell commands are written to as Codex
	// prefix_rule()s; "" leaves them out, with a warning.
	Rules string `json:"rules,omitempty"`
}

// Archetype names and their policies (README, "Archetypes").
const (
	ArchTool     = "tool"
	ArchRepo     = "repo"
	ArchEmployee = "employee"
	ArchService  = "service"

	WorkspaceProject  = "project"
	WorkspaceInstance = "instance"

	CwdClient    = "client"
	CwdWorkspace = "workspace"
	// CwdWorkspaceClient: the agent's workspace is the session cwd and the
	// client's project one of its additionalDirectories, where the agent
	// takes them (an employee reached from an editor stays itself:
	// docs/runtime.md, "An employee reached from an editor"); the client's
	// cwd as it is where it does not.
	CwdWorkspaceClient = "workspace+client"

	ConflictAppend    = "append"
	ConflictOverwrite = "overwrite"
	ConflictSkip      = "skip"
	ConflictError     = "error"

	MaterializeMinimal = "minimal"
	MaterializeFull    = "full"
)

// Launch modes: how an agent's backend is started (README, "actctl up";
// docs/run.md); the CUE schema's #LaunchMode allows exactly these.
const (
	LaunchDirect        = "direct"         // by its client, when asked (open, run, chat, proxy)
	LaunchACPBackground = "acp-background" // by up over ACP (employee; restarted by its restart policy)
	LaunchACPService    = "acp-service"    // by up over ACP (service; restarted by its restart policy)
	LaunchOneShot       = "one-shot"       // once per client, on an ephemeral copy
)

// LaunchModes lists every launch mode, in the CUE schema's order.
var LaunchModes = []string{LaunchDirect, LaunchACPBackground, LaunchACPService, LaunchOneShot}

// Archetype is the policy bundle an agent's template selects.
type Archetype struct {
	LaunchMode       string   `json:"launchMode"`
	InteractionModes []string `json:"interactionModes"`
	AutoStart        bool     `json:"autoStart"`
	Workspace        string   `json:"workspace"`
	ProcessCwd       string   `json:"processCwd"`
	SessionCwd       string   `json:"sessionCwd"`
	WorkDirConflict  string   `json:"workDirConflict"`
	Gitignore        []string `json:"gitignore"`
	Materialize      string   `json:"materialize"`
	// LeaseTTL is how long a leased session outlives its client (a Go
	// duration; "" means 30 minutes).
	LeaseTTL string `json:"leaseTTL,omitempty"`
	// Restart, TurnTimeout and StallAfter are the defaults of the
	// templates' fields (Template; "" when the archetype sets none).
	Restart     string `json:"restart,omitempty"`
	TurnTimeout string `json:"turnTimeout,omitempty"`
	StallAfter  string `json:"stallAfter,omitempty"`
	// Plugins: the session plugins of its templates that list none
	// (plugins.go).
	Plugins []string `json:"plugins,omitempty"`
}

// Allows reports whether the archetype allows interaction mode m.
func (a Archetype) Allows(m string) bool {
	for _, x := range a.InteractionModes {
		if x == m {
			return true
		}
	}
	return false
}

// Skill is instruction content for one capability. Exactly one of Content,
// File or Dir is the source; File and Dir are relative to the workspace
// root (or to the hub tree for hub skills) and are read by the loader, so
// that Content always holds the SKILL body after loading and Files holds
// the sibling files of a directory skill.
type Skill struct {
	Description string `json:"description,omitempty"`
	Content     string `json:"content,omitempty"`
	File        string `json:"file,omitempty"`
	Dir         string `json:"dir,omitempty"`
	// Paths are globs of the files the skill is about: a path-scoped rule
	// where the backend has Files.Rules.
	Paths []string `json:"paths,omitempty"`
	// Meta is the frontmatter of the skill's source (SKILL.md, a file, or
	// content starting with one), every field kept; nil when it has none.
	// Content never holds it.
	Meta *frontmatter.Doc `json:"-"`
	// Files are extra files travelling with the skill (relative path -> bytes).
	Files map[string][]byte `json:"-"`
	// Executable marks the Files whose source is executable (any x bit, or
	// git's mode 100755): they are written with mode 0755, others 0644.
	Executable map[string]bool `json:"-"`
	// Source is the file the skill was read from, for messages and watch.
	Source string `json:"-"`
}

// SlashCommand is a prompt template the user invokes (/name in the
// tool); the tool's own placeholders ($ARGUMENTS, {{args}}) pass through.
type SlashCommand struct {
	Description string `json:"description,omitempty"`
	Content     string `json:"content"`
}

// Command layout formats (DirLayout.Format for commands), besides
// FormatMarkdown and FormatSkillDir.
const (
	FormatPlain         = "plain"  // <dir>/<name>.md, the prompt only
	FormatGeminiCommand = "gemini" // <dir>/<name>.toml: description, prompt (Gemini CLI)
)

// Prompt is a text with {{var}} placeholders.
type Prompt struct {
	Description string   `json:"description,omitempty"`
	Content     string   `json:"content"`
	Variables   []string `json:"variables,omitempty"`
}

// MCPServer is either a stdio server (Command) or a remote one (URL).
type MCPServer struct {
	// Type is "stdio" for a local server whose Claude Code entry carries
	// "type": "stdio" (as `claude mcp add` writes it), else "".
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Install is the command that installs a stdio server's Command,
	// one command in shell words as a backend's install: the image
	// recipe and the workflows run it (docs/deploy.md, "The image").
	Install string `json:"install,omitempty"`
}

// Permissions is a preset name or an explicit rule set.
type Permissions struct {
	// Preset is one of permissive, standard, restricted, readonly; empty
	// when the rules below are given explicitly.
	Preset      string   `json:"preset,omitempty"`
	Allow       []string `json:"allow,omitempty"`
	Deny        []string `json:"deny,omitempty"`
	Ask         []string `json:"ask,omitempty"`
	DefaultMode string   `json:"defaultMode,omitempty"`
	// AdditionalDirectories are directories beyond the workspace the
	// agent may use (Claude Code permissions.additionalDirectories).
	AdditionalDirectories []string `json:"additionalDirectories,omitempty"`
}

// Unset reports whether p gives nothing: no preset, no mode, no rule. Such
// permissions write no key into the tool's files, and actctl's own client
// answers permission requests as PresetStandard would.
func (p Permissions) Unset() bool {
	return p.Preset == "" && p.DefaultMode == "" && len(p.Allow) == 0 && len(p.Deny) == 0 &&
		len(p.Ask) == 0 && len(p.AdditionalDirectories) == 0
}

// Permission presets.
const (
	PresetPermissive = "permissive"
	PresetStandard   = "standard"
	PresetRestricted = "restricted"
	PresetReadonly   = "readonly"
)

// Schedule drives employee agents.
type Schedule struct {
	Heartbeat *Heartbeat `json:"heartbeat,omitempty"`
	Cron      []Cron     `json:"cron,omitempty"`
}

type Heartbeat struct {
	Interval string `json:"interval"`
	Prompt   string `json:"prompt"`
}

type Cron struct {
	Pattern  string `json:"pattern"`
	Prompt   string `json:"prompt"`
	Timezone string `json:"timezone,omitempty"`
}

// Hook is one of actctl's own event hooks (docs/runtime.md): on event On,
// for the agents listed (all when empty), run a command or prompt an agent.
type Hook struct {
	On     string      `json:"on"`
	Agents []string    `json:"agents,omitempty"`
	Run    *HookRun    `json:"run,omitempty"`
	Prompt *HookPrompt `json:"prompt,omitempty"`
	// Template is the hub template ("source@name") whose hooks this one
	// maps (hub.Merge); empty for a hook of actant.cue.
	Template string `json:"-"`
}

// HookRun is a command run with the event as JSON in $ACTCTL_EVENT.
type HookRun struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
	// Timeout is a duration ("30s"); empty means the default.
	Timeout string `json:"timeout,omitempty"`
}

// HookPrompt queues Text ({{event.*}} filled) as a task for Agent.
type HookPrompt struct {
	Agent string `json:"agent"`
	Text  string `json:"text"`
}

// Template is a reusable agent definition.
type Template struct {
	Version         string      `json:"version"`
	Description     string      `json:"description,omitempty"`
	Backend         string      `json:"backend"`
	Archetype       string      `json:"archetype"`
	LaunchMode      string      `json:"launchMode,omitempty"`
	WorkspacePolicy string      `json:"workspacePolicy,omitempty"`
	Skills          []string    `json:"skills"`
	Prompts         []string    `json:"prompts"`
	MCPServers      []string    `json:"mcpServers"`
	Commands        []string    `json:"commands"`
	Ignore          []string    `json:"ignore"`
	SubAgents       []string    `json:"subAgents"`
	SubAgent        *SubAgent   `json:"subAgent,omitempty"`
	Permissions     Permissions `json:"permissions"`
	// Settings are native settings by backend name (any JSON value under
	// each top-level key), merged as managed keys into that backend's
	// settings file.
	Settings map[string]map[string]any `json:"settings,omitempty"`
	Schedule *Schedule                 `json:"schedule,omitempty"`
	Vars     map[string]string         `json:"vars,omitempty"`

	// Restart, TurnTimeout and StallAfter keep the agent alive under
	// actctl up (Resolved.Liveness; "" takes the archetype's).
	Restart     string `json:"restart,omitempty"`
	TurnTimeout string `json:"turnTimeout,omitempty"`
	StallAfter  string `json:"stallAfter,omitempty"`
	// Plugins: the session plugins of its agents, in order; nil takes the
	// archetype's, [] is none (plugins.go).
	Plugins *[]string `json:"plugins,omitempty"`

	// Source is "" for local templates, else the hub source name.
	Source string `json:"-"`
	// Heading false leaves the "## <agent>" heading out of the agent's
	// instruction block; nil or true writes it.
	Heading *bool `json:"heading,omitempty"`
	// Hooks are a hub template's event hooks (Actant's schedule.hooks,
	// mapped onto actctl's events by package hub): hub.Merge makes each a
	// prompt hook of every agent of the template.
	Hooks []TemplateHook `json:"-"`
}

// TemplateHook prompts the template's agent with Text on event On.
type TemplateHook struct {
	On, Text string
}

// SubAgent is how a template is described when rendered as another
// agent's sub-agent (Claude Code sub-agent frontmatter).
type SubAgent struct {
	// Tools the sub-agent may use; empty: every tool of the session.
	Tools []string `json:"tools,omitempty"`
	// Model: "sonnet", "opus", "haiku", "inherit" or a model id.
	Model string `json:"model,omitempty"`
	// Backends holds, by backend name, tools and model in that tool's own
	// vocabulary, written as given in place of Tools and Model (which are
	// Claude Code's names, translated where the tool's are known).
	Backends map[string]SubAgentNative `json:"backends,omitempty"`
}

// SubAgentNative is a sub-agent's tools and model in one tool's own
// vocabulary; a field left empty falls back to the common one.
type SubAgentNative struct {
	Tools []string `json:"tools,omitempty"`
	Model string   `json:"model,omitempty"`
}

// Agent is one declared agent: a template plus where and how it lives.
type Agent struct {
	Template        string            `json:"template"`
	WorkDir         string            `json:"workDir,omitempty"`
	WorkDirConflict string            `json:"workDirConflict,omitempty"`
	Vars            map[string]string `json:"vars,omitempty"`
	Permissions     *Permissions      `json:"permissions,omitempty"`
	LaunchMode      string            `json:"launchMode,omitempty"`

	// Checkout is a repository an employee works on, cloned into its
	// workspace and reset to its ref before each task (docs/runtime.md,
	// "Checkout"); nil when none.
	Checkout *Checkout `json:"checkout,omitempty"`

	// Deploy: the agent's place on the deploy targets (deploy.go).
	Deploy *AgentDeploy `json:"deploy,omitempty"`

	// Adhoc marks an agent that `actctl proxy` created (-t, or a tool
	// agent's per-project copy) and recorded in .actant/adhoc.json rather
	// than one declared in CUE; `actctl delete` removes such agents.
	Adhoc bool `json:"-"`
}

// Checkout is an agent's repository: URL (https, ssh, file:// or a local
// path, relative to the workspace root) at Ref (a branch, a tag or a
// commit), in Dir of its workspace (default "checkout").
type Checkout struct {
	URL string `json:"url"`
	Ref string `json:"ref"`
	Dir string `json:"dir,omitempty"`
}

// UnmarshalJSON accepts a preset name or an explicit rule set.
func (p *Permissions) UnmarshalJSON(b []byte) error {
	var preset string
	if json.Unmarshal(b, &preset) == nil {
		*p = Permissions{Preset: preset}
		return nil
	}
	type rules Permissions
	var r rules
	if err := json.Unmarshal(b, &r); err != nil {
		return err
	}
	*p = Permissions(r)
	return nil
}

// MarshalJSON writes a preset as its name, rules as an object.
func (p Permissions) MarshalJSON() ([]byte, error) {
	if p.Preset != "" {
		return json.Marshal(p.Preset)
	}
	type rules Permissions
	return json.Marshal(rules(p))
}

// Ignore is a named list of gitignore patterns an agent must not read
// (#Ignore in actant.cue).
type Ignore struct {
	Patterns []string `json:"patterns"`
}

// IgnoreFile is where a backend reads the paths its agent must not read
// (#IgnoreFile in actant.cue): Format is IgnoreGitignore or IgnoreClaude.
type IgnoreFile struct {
	Path   string `json:"path"`
	Format string `json:"format"`
}

// Ignore file formats.
const (
	// IgnoreGitignore: a file of gitignore patterns (.cursorignore, ...),
	// the agent's patterns as one hash-style block.
	IgnoreGitignore = "gitignore"
	// IgnoreClaude: Read(pattern) rules in permissions.deny of a Claude
	// Code settings file.
	IgnoreClaude = "claude"
)

// InstallHint is how to install backend b, for messages: its install
// command, else its note.
func (b Backend) InstallHint() string {
	if b.Install != "" {
		return b.Install
	}
	return b.InstallNote
}
