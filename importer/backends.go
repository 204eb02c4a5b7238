package importer

import "github.com/actctl/actctl/schema"

// Backend is where one built-in backend keeps what import can take: the
// same paths as its layout in schema/actant.cue (docs/formats.md).
type Backend struct {
	// Name is the built-in backend's name; the imported agent, template
	// and prompt are named after it.
	Name string
	// Instructions is the file the tool reads its instructions from.
	Instructions string
	// Fallback is the file the tool reads instead when Instructions is
	// missing (Claude Code reads AGENTS.md only when there is no
	// CLAUDE.md): the agent then gets the prompt taken from it, since the
	// CLAUDE.md apply creates would hide it.
	Fallback string
	// Skills is the Agent Skills directory (<dir>/<name>/SKILL.md).
	Skills string
	// MCP is the file of MCP servers, if the tool has one import reads.
	MCP *MCPFile
	// Rules is the directory of path-scoped rules, taken as skills with
	// paths (Copilot's path-specific instructions, Cursor's and Claude
	// Code's rules).
	Rules *schema.DirLayout
	// SubAgents is the sub-agents directory and its format (Claude
	// Code's schema.FormatClaudeSub, Cursor's FormatCursorSub, Gemini
	// CLI's FormatGeminiSub, Copilot's FormatCopilotSub, Codex's
	// FormatCodexSub, OpenCode's FormatOpenCodeSub, Antigravity's
	// FormatAntigravitySub).
	SubAgents *schema.DirLayout
	// Commands is the slash commands directory and its format
	// (schema.FormatMarkdown, FormatPlain, FormatGeminiCommand).
	Commands *schema.DirLayout
	// Settings is the structured settings file: the MCP key, if the same
	// file, and the permission keys are taken out; every other key
	// becomes templates.<t>.settings.<backend>.
	Settings string
	// PermDialect is the permission dialect of Settings that import
	// reads back ("" takes no permissions: their keys stay settings).
	PermDialect string
	// Others are paths of this tool that import does not take (reported
	// as left as they are when present); their presence also means the
	// tool is used.
	Others []string
}

// MCPFile is a file of MCP servers under one key (TOML when its name
// ends in .toml, else JSON).
type MCPFile struct {
	Path, Key, Dialect string
}

// Backends are the tools import reads, in the order that decides who
// takes a shared instruction file (AGENTS.md): the first whose other
// files are present, else the first that reads it.
var Backends = []Backend{
	{
		Name:         "claude-code",
		Instructions: "CLAUDE.md",
		Fallback:     "AGENTS.md",
		Skills:       ".claude/skills",
		MCP:          &MCPFile{Path: ".mcp.json", Key: "mcpServers", Dialect: schema.DialectClaude},
		Commands:     &schema.DirLayout{Dir: ".claude/commands", Format: schema.FormatMarkdown},
		SubAgents:    &schema.DirLayout{Dir: ".claude/agents", Format: schema.FormatClaudeSub},
		Rules:        &schema.DirLayout{Dir: ".claude/rules", Format: schema.FormatClaudeRules},
		Settings:     ".claude/settings.json",
		PermDialect:  schema.DialectClaude,
		Others:       []string{".claude/settings.local.json"},
	},
	{
		Name:         "codex",
		Instructions: "AGENTS.md",
		Skills:       ".agents/skills",
		MCP:          &MCPFile{Path: ".codex/config.toml", Key: "mcp_servers", Dialect: schema.DialectCodex},
		Settings:     ".codex/config.toml",
		PermDialect:  schema.DialectCodex,
		SubAgents:    &schema.DirLayout{Dir: ".codex/agents", Format: schema.FormatCodexSub},
	},
	{
		Name:         "cursor",
		Instructions: "AGENTS.md",
		Skills:       ".cursor/skills",
		MCP:          &MCPFile{Path: ".cursor/mcp.json", Key: "mcpServers", Dialect: schema.DialectCursor},
		Commands:     &schema.DirLayout{Dir: ".cursor/commands", Format: schema.FormatPlain},
		Rules:        &schema.DirLayout{Dir: ".cursor/rules", Format: schema.FormatCursorMDC},
		SubAgents:    &schema.DirLayout{Dir: ".cursor/agents", Format: schema.FormatCursorSub},
		Others:       []string{".cursor/cli.json", ".cursorrules"},
	},
	{
		Name:         "gemini",
		Instructions: "GEMINI.md",
		Skills:       ".gemini/skills",
		MCP:          &MCPFile{Path: ".gemini/settings.json", Key: "mcpServers", Dialect: schema.DialectGemini},
		Commands:     &schema.DirLayout{Dir: ".gemini/commands", Format: schema.FormatGeminiCommand},
		SubAgents:    &schema.DirLayout{Dir: ".gemini/agents", Format: schema.FormatGeminiSub},
		Settings:     ".gemini/settings.json",
	},
	{
		Name:         "pi",
		Instructions: "AGENTS.md",
		Skills:       ".pi/skills",
		Commands:     &schema.DirLayout{Dir: ".pi/prompts", Format: schema.FormatMarkdown},
		Settings:     ".pi/settings.json",
	},
	{
		// Antigravity reads .agents/skills, codex's directory, which the
		// codex row takes; its commands are skills there too.
		Name:         "antigravity",
		Instructions: "AGENTS.md",
		MCP:          &MCPFile{Path: ".agents/mcp_config.json", Key: "mcpServers", Dialect: schema.DialectAntigravity},
		SubAgents:    &schema.DirLayout{Dir: ".agents/agents", Format: schema.FormatAntigravitySub},
		Settings:     ".agents/hooks.json",
		Others:       []string{".agents/workflows"},
	},
	{
		Name:         "copilot",
		Instructions: ".github/copilot-instructions.md",
		Skills:       ".github/skills",
		Commands:     &schema.DirLayout{Dir: ".github/prompts", Format: schema.FormatMarkdown, Ext: ".prompt.md"},
		MCP:          &MCPFile{Path: ".vscode/mcp.json", Key: "servers", Dialect: schema.DialectVSCode},
		Rules:        &schema.DirLayout{Dir: ".github/instructions", Format: schema.FormatInstructions},
		SubAgents:    &schema.DirLayout{Dir: ".github/agents", Format: schema.FormatCopilotSub},
	},
	{
		// OpenCode reads .agents/skills, codex's directory, which the
		// codex row takes. Its permission keys are read as settings.
		Name:         "opencode",
		Instructions: "AGENTS.md",
		Commands:     &schema.DirLayout{Dir: ".opencode/commands", Format: schema.FormatMarkdown},
		MCP:          &MCPFile{Path: "opencode.json", Key: "mcp", Dialect: schema.DialectOpenCode},
		SubAgents:    &schema.DirLayout{Dir: ".opencode/agents", Format: schema.FormatOpenCodeSub},
		Settings:     "opencode.json",
		Others:       []string{"opencode.jsonc"},
	},
	{
		// Qwen Code, a Gemini CLI fork: its sub-agents' own format is not
		// read back yet; its permission keys are read as settings.
		Name:         "qwen",
		Instructions: "QWEN.md",
		Skills:       ".qwen/skills",
		Commands:     &schema.DirLayout{Dir: ".qwen/commands", Format: schema.FormatMarkdown},
		MCP:          &MCPFile{Path: ".qwen/settings.json", Key: "mcpServers", Dialect: schema.DialectQwen},
		Settings:     ".qwen/settings.json",
		Others:       []string{".qwen/agents"},
	},
	{
		// Factory Droid: its droids take Factory's own tool ids.
		Name:         "factory",
		Instructions: "AGENTS.md",
		Skills:       ".factory/skills",
		Commands:     &schema.DirLayout{Dir: ".factory/commands", Format: schema.FormatMarkdown},
		SubAgents:    &schema.DirLayout{Dir: ".factory/droids", Format: schema.FormatAntigravitySub},
		MCP:          &MCPFile{Path: ".factory/mcp.json", Key: "mcpServers", Dialect: schema.DialectClaude},
		Settings:     ".factory/settings.json",
	},
	{
		// Auggie keeps its MCP servers in its settings file.
		Name:         "auggie",
		Instructions: "AGENTS.md",
		Skills:       ".augment/skills",
		Commands:     &schema.DirLayout{Dir: ".augment/commands", Format: schema.FormatMarkdown},
		SubAgents:    &schema.DirLayout{Dir: ".augment/agents", Format: schema.FormatAntigravitySub},
		MCP:          &MCPFile{Path: ".augment/settings.json", Key: "mcpServers", Dialect: schema.DialectClaude},
		Settings:     ".augment/settings.json",
		Others:       []string{".augment/settings.local.json", ".augment/rules"},
	},
	{
		// Warp: its commands are skills in .warp/skills.
		Name:         "warp",
		Instructions: "AGENTS.md",
		Skills:       ".warp/skills",
		MCP:          &MCPFile{Path: ".warp/.mcp.json", Key: "mcpServers", Dialect: schema.DialectGeneric},
		Others:       []string{"WARP.md"},
	},
	{
		// Zed's own agent: its MCP servers are the context_servers of
		// the project settings, whose other keys are taken as settings.
		// It reads .agents/skills, codex's directory, which the codex
		// row takes.
		Name:         "zed",
		Instructions: ".rules",
		MCP:          &MCPFile{Path: ".zed/settings.json", Key: "context_servers", Dialect: schema.DialectZed},
		Settings:     ".zed/settings.json",
	},
	{
		// JetBrains AI Assistant: its project MCP file; its project
		// rules are typed in the IDE, not read. It reads .agents/skills,
		// which the codex row takes.
		Name:         "aiassistant",
		Instructions: "AGENTS.md",
		MCP:          &MCPFile{Path: ".ai/mcp/mcp.json", Key: "mcpServers", Dialect: schema.DialectGeneric},
		Others:       []string{".aiassistant/rules"},
	},
	{
		// Crush: its MCP servers and other settings share .crush.json.
		Name:         "crush",
		Instructions: "CRUSH.md",
		Skills:       ".crush/skills",
		MCP:          &MCPFile{Path: ".crush.json", Key: "mcp", Dialect: schema.DialectCrush},
		Settings:     ".crush.json",
		Others:       []string{"crush.json"},
	},
	{
		// Mistral Vibe: its config.toml holds MCP servers as an array
		// of tables, which apply does not write: left whole.
		Name:         "vibe",
		Instructions: "AGENTS.md",
		Skills:       ".vibe/skills",
		Others:       []string{".vibe/config.toml", ".vibe/agents"},
	},
	{
		// Kimi Code keeps its project files under .kimi-code/.
		Name:         "kimi",
		Instructions: ".kimi-code/AGENTS.md",
		Skills:       ".kimi-code/skills",
		MCP:          &MCPFile{Path: ".kimi-code/mcp.json", Key: "mcpServers", Dialect: schema.DialectKimi},
		Others:       []string{".kimi-code/agents"},
	},
	{
		// Rovo Dev: its sub-agents take its own tool names.
		Name:         "rovodev",
		Instructions: "AGENTS.md",
		Skills:       ".rovodev/skills",
		SubAgents:    &schema.DirLayout{Dir: ".rovodev/subagents", Format: schema.FormatAntigravitySub},
		Others:       []string{".rovodev/mcp.json", ".rovodev/prompts.yml", ".rovodev/config.yml"},
	},
	{
		// Deep Agents Code: a sub-agent is a directory holding
		// AGENTS.md, which import does not read yet.
		Name:         "deepagents",
		Instructions: ".deepagents/AGENTS.md",
		Skills:       ".deepagents/skills",
		MCP:          &MCPFile{Path: ".deepagents/.mcp.json", Key: "mcpServers", Dialect: schema.DialectClaude},
		Others:       []string{".deepagents/agents", ".deepagents/hooks.json"},
	},
	{
		// Grok Build: its MCP servers are TOML tables of .grok/config.toml,
		// whose other keys (permissions, plugins) import does not take.
		Name:         "grok",
		Instructions: "AGENTS.md",
		Skills:       ".grok/skills",
		Commands:     &schema.DirLayout{Dir: ".grok/commands", Format: schema.FormatMarkdown},
		SubAgents:    &schema.DirLayout{Dir: ".grok/agents", Format: schema.FormatGooseSub},
		MCP:          &MCPFile{Path: ".grok/config.toml", Key: "mcp_servers", Dialect: schema.DialectGrok},
		Others:       []string{".grok/hooks", ".grok/rules"},
	},
	{
		// Zoo Code (Roo Code's continuation): its modes are one
		// aggregated .roomodes file, which import does not read.
		Name:         "zoo",
		Instructions: "AGENTS.md",
		Skills:       ".roo/skills",
		Commands:     &schema.DirLayout{Dir: ".roo/commands", Format: schema.FormatMarkdown},
		MCP:          &MCPFile{Path: ".roo/mcp.json", Key: "mcpServers", Dialect: schema.DialectRoo},
		Others:       []string{".roomodes", ".roo/rules"},
	},
}

// NotRead are other tools' files, for which actctl has no built-in backend
// yet: import lists each one present as left, never passes over it.
var NotRead = []struct{ Tool, Path string }{
	{"Windsurf", ".windsurfrules"},
	{"Windsurf", ".windsurf"},
	{"Cline", ".clinerules"},
	{"Kilo Code", ".kilocode"},
	{"Kiro", ".kiro"},
	{"Junie", ".junie"},
	{"Goose", ".goosehints"},
}

// backendNamed returns the row named name.
func backendNamed(name string) (Backend, bool) {
	for _, b := range Backends {
		if b.Name == name {
			return b, true
		}
	}
	return Backend{}, false
}
