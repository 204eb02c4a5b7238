package materialize

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// builtinBackends mirrors the built-in backend layouts of schema/actant.cue
// as Go values, so materialize can be tested without the CUE loader.
func builtinBackends() map[string]schema.Backend {
	skill := func(dir string, reads ...string) *schema.DirLayout {
		return &schema.DirLayout{Dir: dir, Format: schema.FormatSkillDir, Reads: reads}
	}
	cursorHooks := []schema.SettingsFile{{Path: ".cursor/hooks.json", Format: schema.FormatJSON, Keys: []string{"version", "hooks"}}}
	return map[string]schema.Backend{
		"claude-code": {Files: schema.Files{
			Instructions: []string{"CLAUDE.md"},
			Skills:       skill(".claude/skills"),
			SubAgents:    &schema.DirLayout{Dir: ".claude/agents", Format: schema.FormatClaudeSub},
			Rules:        &schema.DirLayout{Dir: ".claude/rules", Format: schema.FormatClaudeRules},
			Commands:     &schema.DirLayout{Dir: ".claude/commands", Format: schema.FormatMarkdown},
			MCP:          &schema.MCPFile{Path: ".mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectClaude},
			Permissions:  &schema.PermissionsFile{Path: ".claude/settings.json", Format: schema.FormatJSON, Dialect: schema.DialectClaude},
			Settings:     &schema.SettingsFile{Path: ".claude/settings.json", Format: schema.FormatJSON},
			Shadows:      &schema.Shadows{Files: []string{"AGENTS.md"}, Import: "@{path}"},
			Ignore:       &schema.IgnoreFile{Path: ".claude/settings.json", Format: schema.IgnoreClaude},
		}},
		"codex": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".agents/skills"),
			SubAgents:    &schema.DirLayout{Dir: ".codex/agents", Format: schema.FormatCodexSub},
			MCP:          &schema.MCPFile{Path: ".codex/config.toml", Format: schema.FormatTOML, Key: "mcp_servers", Dialect: schema.DialectCodex},
			Permissions:  &schema.PermissionsFile{Path: ".codex/config.toml", Format: schema.FormatTOML, Dialect: schema.DialectCodex, Rules: ".codex/rules/actctl.rules"},
			Settings: &schema.SettingsFile{Path: ".codex/config.toml", Format: schema.FormatTOML, Ignored: &schema.IgnoredKeys{
				Keys: []string{"profile", "profiles", "model_provider", "model_providers", "openai_base_url", "chatgpt_base_url", "experimental_realtime_ws_base_url"},
				Note: `Codex ignores them in a project's config since 0.130 ("Ignored unsupported project-local config keys"): set them in ~/.codex/config.toml`,
			}},
		}},
		"gemini": {Files: schema.Files{
			Instructions: []string{"GEMINI.md"},
			Skills:       skill(".gemini/skills", ".agents/skills"),
			Commands:     &schema.DirLayout{Dir: ".gemini/commands", Format: schema.FormatGeminiCommand},
			SubAgents:    &schema.DirLayout{Dir: ".gemini/agents", Format: schema.FormatGeminiSub},
			MCP:          &schema.MCPFile{Path: ".gemini/settings.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectGemini},
			Permissions:  &schema.PermissionsFile{Path: ".gemini/settings.json", Format: schema.FormatJSON, Dialect: schema.DialectGemini},
			Settings:     &schema.SettingsFile{Path: ".gemini/settings.json", Format: schema.FormatJSON},
			Ignore:       &schema.IgnoreFile{Path: ".geminiignore", Format: schema.IgnoreGitignore},
		}},
		"cursor": {Files: schema.Files{
			Instructions:  []string{"AGENTS.md"},
			Skills:        skill(".cursor/skills", ".agents/skills", ".claude/skills"),
			Commands:      &schema.DirLayout{Dir: ".cursor/commands", Format: schema.FormatMarkdown},
			SubAgents:     &schema.DirLayout{Dir: ".cursor/agents", Format: schema.FormatCursorSub},
			Rules:         &schema.DirLayout{Dir: ".cursor/rules", Format: schema.FormatCursorMDC},
			MCP:           &schema.MCPFile{Path: ".cursor/mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectCursor},
			SettingsFiles: cursorHooks,
			Ignore:        &schema.IgnoreFile{Path: ".cursorignore", Format: schema.IgnoreGitignore},
		}},
		"cursor-agent": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".cursor/skills", ".agents/skills", ".claude/skills"),
			Commands:     &schema.DirLayout{Dir: ".cursor/commands", Format: schema.FormatMarkdown},
			SubAgents:    &schema.DirLayout{Dir: ".cursor/agents", Format: schema.FormatCursorSub},
			Rules:        &schema.DirLayout{Dir: ".cursor/rules", Format: schema.FormatCursorMDC},
			MCP:          &schema.MCPFile{Path: ".cursor/mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectCursor},
			Permissions:  &schema.PermissionsFile{Path: ".cursor/cli.json", Format: schema.FormatJSON, Dialect: schema.DialectCursor},
			Settings: &schema.SettingsFile{Path: ".cursor/cli.json", Format: schema.FormatJSON, Ignored: &schema.IgnoredKeys{Keys: []string{"*"},
				Note: "Cursor CLI reads only permissions from a project's .cursor/cli.json (cursor.com/docs/cli/reference/configuration): set the others in ~/.cursor/cli-config.json"}},
			SettingsFiles: cursorHooks,
			Ignore:        &schema.IgnoreFile{Path: ".cursorignore", Format: schema.IgnoreGitignore},
		}},
		"antigravity": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".agents/skills"),
			Commands:     &schema.DirLayout{Dir: ".agents/workflows", Format: schema.FormatMarkdown},
			SubAgents:    &schema.DirLayout{Dir: ".agents/agents", Format: schema.FormatAntigravitySub},
			MCP:          &schema.MCPFile{Path: ".agents/mcp_config.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectAntigravity},
			Settings:     &schema.SettingsFile{Path: ".agents/hooks.json", Format: schema.FormatJSON},
			Ignore:       &schema.IgnoreFile{Path: ".geminiignore", Format: schema.IgnoreGitignore},
		}},
		"copilot": {Files: schema.Files{
			Instructions:  []string{".github/copilot-instructions.md"},
			Skills:        skill(".github/skills", ".claude/skills", ".agents/skills"),
			Commands:      &schema.DirLayout{Dir: ".github/prompts", Format: schema.FormatMarkdown, Ext: ".prompt.md"},
			SubAgents:     &schema.DirLayout{Dir: ".github/agents", Format: schema.FormatCopilotSub},
			Rules:         &schema.DirLayout{Dir: ".github/instructions", Format: schema.FormatInstructions},
			MCP:           &schema.MCPFile{Path: ".vscode/mcp.json", Format: schema.FormatJSON, Key: "servers", Dialect: schema.DialectVSCode},
			Permissions:   &schema.PermissionsFile{Path: ".vscode/settings.json", Format: schema.FormatJSON, Dialect: schema.DialectVSCode},
			MCPFiles:      []schema.MCPFile{{Path: ".github/mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectCopilot}},
			SettingsFiles: []schema.SettingsFile{{Path: ".github/hooks/actctl.json", Format: schema.FormatJSON, Keys: []string{"version", "hooks"}}},
		}},
		"opencode": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".agents/skills", ".claude/skills"),
			Commands:     &schema.DirLayout{Dir: ".opencode/commands", Format: schema.FormatMarkdown},
			SubAgents:    &schema.DirLayout{Dir: ".opencode/agents", Format: schema.FormatOpenCodeSub},
			MCP:          &schema.MCPFile{Path: "opencode.json", Format: schema.FormatJSON, Key: "mcp", Dialect: schema.DialectOpenCode},
			Permissions:  &schema.PermissionsFile{Path: "opencode.json", Format: schema.FormatJSON, Dialect: schema.DialectOpenCode},
			Settings:     &schema.SettingsFile{Path: "opencode.json", Format: schema.FormatJSON},
		}},
		"devin": {Files: schema.Files{
			Instructions:  []string{"AGENTS.md"},
			Skills:        skill(".devin/skills"),
			Commands:      &schema.DirLayout{Dir: ".devin/skills", Format: schema.FormatSkillDir},
			Rules:         &schema.DirLayout{Dir: ".devin/rules", Format: schema.FormatGlobTrigger},
			SubAgents:     &schema.DirLayout{Dir: ".devin/agents", Format: schema.FormatDevinSub},
			MCP:           &schema.MCPFile{Path: ".devin/mcp_config.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectGeneric},
			Permissions:   &schema.PermissionsFile{Path: ".devin/config.json", Format: schema.FormatJSON, Dialect: schema.DialectDevin},
			Settings:      &schema.SettingsFile{Path: ".devin/config.json", Format: schema.FormatJSON},
			SettingsFiles: []schema.SettingsFile{{Path: ".devin/hooks.v1.json", Format: schema.FormatJSON, Keys: []string{"PreToolUse", "PostToolUse", "PermissionRequest", "UserPromptSubmit", "Stop", "SessionStart", "SessionEnd"}}},
			Ignore:        &schema.IgnoreFile{Path: ".devinignore", Format: schema.IgnoreGitignore},
		}},
		"cline": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".cline/skills"),
			Commands:     &schema.DirLayout{Dir: ".clinerules/workflows", Format: schema.FormatPlain},
			Rules:        &schema.DirLayout{Dir: ".clinerules", Format: schema.FormatPathsRules},
			SubAgents:    &schema.DirLayout{Dir: ".cline/agents", Format: schema.FormatClineSub},
			Ignore:       &schema.IgnoreFile{Path: ".clineignore", Format: schema.IgnoreGitignore},
		}},
		"kiro": {Files: schema.Files{
			Instructions:  []string{"AGENTS.md"},
			Skills:        skill(".kiro/skills"),
			Commands:      &schema.DirLayout{Dir: ".kiro/prompts", Format: schema.FormatPlain},
			Rules:         &schema.DirLayout{Dir: ".kiro/steering", Format: schema.FormatSteering},
			SubAgents:     &schema.DirLayout{Dir: ".kiro/agents", Format: schema.FormatKiroSub},
			MCP:           &schema.MCPFile{Path: ".kiro/settings/mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectGeneric},
			SettingsFiles: []schema.SettingsFile{{Path: ".kiro/hooks/actctl.json", Format: schema.FormatJSON, Keys: []string{"version", "hooks"}}},
			Ignore:        &schema.IgnoreFile{Path: ".kiroignore", Format: schema.IgnoreGitignore},
		}},
		"amp": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".agents/skills"),
			Rules:        &schema.DirLayout{Dir: ".amp/rules", Format: schema.FormatGlobsRules, Mention: "@{path}"},
			MCP:          &schema.MCPFile{Path: ".amp/settings.json", Format: schema.FormatJSON, Key: "amp.mcpServers", Dialect: schema.DialectGeneric},
			Permissions:  &schema.PermissionsFile{Path: ".amp/settings.json", Format: schema.FormatJSON, Dialect: schema.DialectAmp},
			Settings:     &schema.SettingsFile{Path: ".amp/settings.json", Format: schema.FormatJSON},
		}},
		"qwen": {Files: schema.Files{
			Instructions: []string{"QWEN.md"},
			Skills:       skill(".qwen/skills"),
			Commands:     &schema.DirLayout{Dir: ".qwen/commands", Format: schema.FormatMarkdown},
			Rules:        &schema.DirLayout{Dir: ".qwen/rules", Format: schema.FormatPathsRules},
			SubAgents:    &schema.DirLayout{Dir: ".qwen/agents", Format: schema.FormatQwenSub},
			MCP:          &schema.MCPFile{Path: ".qwen/settings.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectQwen},
			Permissions:  &schema.PermissionsFile{Path: ".qwen/settings.json", Format: schema.FormatJSON, Dialect: schema.DialectQwen},
			Settings:     &schema.SettingsFile{Path: ".qwen/settings.json", Format: schema.FormatJSON},
			Ignore:       &schema.IgnoreFile{Path: ".qwenignore", Format: schema.IgnoreGitignore},
		}},
		"goose": {Files: schema.Files{
			Instructions:  []string{"AGENTS.md"},
			Skills:        skill(".agents/skills", ".claude/skills"),
			SubAgents:     &schema.DirLayout{Dir: ".agents/agents", Format: schema.FormatGooseSub},
			MCP:           &schema.MCPFile{Path: ".agents/plugins/actctl/.mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectGoose},
			SettingsFiles: []schema.SettingsFile{{Path: ".agents/plugins/actctl/hooks/hooks.json", Format: schema.FormatJSON, Keys: []string{"hooks"}}},
		}},
		"kilo": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".kilo/skills"),
			Commands:     &schema.DirLayout{Dir: ".kilo/commands", Format: schema.FormatMarkdown},
			SubAgents:    &schema.DirLayout{Dir: ".kilo/agents", Format: schema.FormatOpenCodeSub},
			MCP:          &schema.MCPFile{Path: "kilo.json", Format: schema.FormatJSON, Key: "mcp", Dialect: schema.DialectOpenCode},
			Permissions:  &schema.PermissionsFile{Path: "kilo.json", Format: schema.FormatJSON, Dialect: schema.DialectOpenCode},
			Settings:     &schema.SettingsFile{Path: "kilo.json", Format: schema.FormatJSON},
			Ignore:       &schema.IgnoreFile{Path: ".kilocodeignore", Format: schema.IgnoreGitignore},
		}},
		"junie": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".junie/skills"),
			Commands:     &schema.DirLayout{Dir: ".junie/commands", Format: schema.FormatMarkdown},
			SubAgents:    &schema.DirLayout{Dir: ".junie/agents", Format: schema.FormatMarkdownSub},
			MCP:          &schema.MCPFile{Path: ".junie/mcp/mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectGeneric},
			Ignore:       &schema.IgnoreFile{Path: ".aiignore", Format: schema.IgnoreGitignore},
		}},
		"factory": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".factory/skills"),
			Commands:     &schema.DirLayout{Dir: ".factory/commands", Format: schema.FormatMarkdown},
			SubAgents:    &schema.DirLayout{Dir: ".factory/droids", Format: schema.FormatAntigravitySub},
			MCP:          &schema.MCPFile{Path: ".factory/mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectClaude},
			Settings:     &schema.SettingsFile{Path: ".factory/settings.json", Format: schema.FormatJSON},
		}},
		"auggie": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".augment/skills", ".agents/skills"),
			Commands:     &schema.DirLayout{Dir: ".augment/commands", Format: schema.FormatMarkdown},
			SubAgents:    &schema.DirLayout{Dir: ".augment/agents", Format: schema.FormatAntigravitySub},
			MCP:          &schema.MCPFile{Path: ".augment/settings.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectClaude},
			Settings:     &schema.SettingsFile{Path: ".augment/settings.json", Format: schema.FormatJSON},
			Ignore:       &schema.IgnoreFile{Path: ".augmentignore", Format: schema.IgnoreGitignore},
		}},
		"warp": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".warp/skills", ".agents/skills", ".claude/skills"),
			Commands:     &schema.DirLayout{Dir: ".warp/skills", Format: schema.FormatSkillDir},
			MCP:          &schema.MCPFile{Path: ".warp/.mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectGeneric},
			Ignore:       &schema.IgnoreFile{Path: ".warpindexingignore", Format: schema.IgnoreGitignore},
		}},
		"zed": {Files: schema.Files{
			Instructions: []string{".rules"},
			Shadows:      &schema.Shadows{Files: []string{".cursorrules", ".windsurfrules", ".clinerules", ".github/copilot-instructions.md", "AGENT.md", "AGENTS.md", "CLAUDE.md", "GEMINI.md"}},
			Skills:       skill(".agents/skills"),
			MCP:          &schema.MCPFile{Path: ".zed/settings.json", Format: schema.FormatJSON, Key: "context_servers", Dialect: schema.DialectZed},
			Settings:     &schema.SettingsFile{Path: ".zed/settings.json", Format: schema.FormatJSON},
		}},
		"aiassistant": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".agents/skills"),
			MCP:          &schema.MCPFile{Path: ".ai/mcp/mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectGeneric},
			Ignore:       &schema.IgnoreFile{Path: ".aiignore", Format: schema.IgnoreGitignore},
		}},
		"crush": {Files: schema.Files{
			Instructions: []string{"CRUSH.md"},
			Skills:       skill(".crush/skills", ".agents/skills", ".claude/skills", ".cursor/skills"),
			MCP:          &schema.MCPFile{Path: ".crush.json", Format: schema.FormatJSON, Key: "mcp", Dialect: schema.DialectCrush},
			Settings:     &schema.SettingsFile{Path: ".crush.json", Format: schema.FormatJSON},
			Ignore:       &schema.IgnoreFile{Path: ".crushignore", Format: schema.IgnoreGitignore},
		}},
		"vibe": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".vibe/skills", ".agents/skills"),
			Settings:     &schema.SettingsFile{Path: ".vibe/config.toml", Format: schema.FormatTOML},
			Ignore:       &schema.IgnoreFile{Path: ".vibeignore", Format: schema.IgnoreGitignore},
		}},
		"kimi": {Files: schema.Files{
			Instructions: []string{".kimi-code/AGENTS.md"},
			Skills:       skill(".kimi-code/skills", ".agents/skills"),
			MCP:          &schema.MCPFile{Path: ".kimi-code/mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectKimi},
		}},
		"rovodev": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".rovodev/skills", ".agents/skills"),
			SubAgents:    &schema.DirLayout{Dir: ".rovodev/subagents", Format: schema.FormatAntigravitySub},
		}},
		"deepagents": {Files: schema.Files{
			Instructions:  []string{".deepagents/AGENTS.md"},
			Skills:        skill(".deepagents/skills", ".agents/skills"),
			SubAgents:     &schema.DirLayout{Dir: ".deepagents/agents", Format: schema.FormatDeepagentsSub},
			MCP:           &schema.MCPFile{Path: ".deepagents/.mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectClaude},
			SettingsFiles: []schema.SettingsFile{{Path: ".deepagents/hooks.json", Format: schema.FormatJSON, Keys: []string{"hooks"}}},
		}},
		"grok": {Files: schema.Files{
			Instructions:  []string{"AGENTS.md"},
			Skills:        skill(".grok/skills"),
			Commands:      &schema.DirLayout{Dir: ".grok/commands", Format: schema.FormatMarkdown},
			SubAgents:     &schema.DirLayout{Dir: ".grok/agents", Format: schema.FormatGooseSub},
			MCP:           &schema.MCPFile{Path: ".grok/config.toml", Format: schema.FormatTOML, Key: "mcp_servers", Dialect: schema.DialectGrok},
			SettingsFiles: []schema.SettingsFile{{Path: ".grok/hooks/actctl.json", Format: schema.FormatJSON, Keys: []string{"hooks"}}},
		}},
		"zoo": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".roo/skills"),
			Commands:     &schema.DirLayout{Dir: ".roo/commands", Format: schema.FormatMarkdown},
			MCP:          &schema.MCPFile{Path: ".roo/mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectRoo},
			Ignore:       &schema.IgnoreFile{Path: ".rooignore", Format: schema.IgnoreGitignore},
		}},
		"pi": {Files: schema.Files{
			Instructions: []string{"AGENTS.md"},
			Skills:       skill(".pi/skills", ".agents/skills"),
			Commands:     &schema.DirLayout{Dir: ".pi/prompts", Format: schema.FormatMarkdown},
			MCP:          &schema.MCPFile{Path: ".pi/mcp.json", Format: schema.FormatJSON, Key: "mcpServers", Dialect: schema.DialectPi},
			Settings:     &schema.SettingsFile{Path: ".pi/settings.json", Format: schema.FormatJSON},
		}},
	}
}

// builtinArchetypes are the defaults (README, "Archetypes").
func builtinArchetypes() map[string]schema.Archetype {
	ign := []string{"/.actant/"}
	return map[string]schema.Archetype{
		schema.ArchTool: {LaunchMode: "direct", Workspace: schema.WorkspaceProject, WorkDirConflict: schema.ConflictAppend,
			Gitignore: ign, Materialize: schema.MaterializeMinimal, ProcessCwd: "workspace", SessionCwd: "client"},
		schema.ArchRepo: {LaunchMode: "direct", Workspace: schema.WorkspaceInstance, WorkDirConflict: schema.ConflictError,
			Gitignore: ign, Materialize: schema.MaterializeFull, ProcessCwd: "workspace", SessionCwd: "workspace"},
		schema.ArchEmployee: {LaunchMode: "acp-background", Workspace: schema.WorkspaceInstance, WorkDirConflict: schema.ConflictError,
			Materialize: schema.MaterializeFull, AutoStart: true},
		schema.ArchService: {LaunchMode: "acp-service", Workspace: schema.WorkspaceInstance, WorkDirConflict: schema.ConflictError,
			Materialize: schema.MaterializeFull, AutoStart: true},
	}
}

const (
	testRoot = "/ws"
	testHome = "/home/u/.actant"
)

// sampleConfig has one agent "reviewer" on the given backend and archetype,
// with two prompts, three skills (one with a sibling file, one with paths:
// a path-scoped rule where the backend has them), two MCP servers (stdio
// and remote) and one sub-agent.
func sampleConfig(backend, archetype string) *schema.Config {
	return &schema.Config{
		Root: testRoot, Home: testHome,
		Backends:   builtinBackends(),
		Archetypes: builtinArchetypes(),
		Skills: map[string]schema.Skill{
			"code-review": {Description: "Review code for bugs. Use when: reviewing a PR", Content: "# Code review\n\nCheck {{language}} idioms.\n",
				Files:      map[string][]byte{"references/checklist.md": []byte("- tests\n"), "scripts/lint.sh": []byte("#!/bin/sh\nexit 0\n")},
				Executable: map[string]bool{"scripts/lint.sh": true}},
			"hub@git-flow": {Description: "Branching rules", Content: "Use trunk-based development on {{repo}}."},
			"go-style":     {Description: "Go style", Content: "Wrap errors with %w in {{repo}}.\n", Paths: []string{"**/*.go", "go.mod"}},
		},
		Prompts: map[string]schema.Prompt{
			"role":  {Content: "You are a careful reviewer of {{repo}}.", Description: "Reviewer role"},
			"style": {Content: "Answer in {{tone}} tone.\n"},
		},
		Commands: map[string]schema.SlashCommand{
			"fix-issue": {Description: "Fix a GitHub issue: {{repo}}", Content: "Fix issue #$ARGUMENTS in {{repo}}.\nGemini form: {{args}}; positional: $1.\nQuote \"\"\" and a backslash \\ stay.\n"},
			"hub@lint":  {Content: "Run the linter."},
		},
		MCPServers: map[string]schema.MCPServer{
			"github": {URL: "https://api.githubcopilot.com/mcp/?a=1&b=2", Headers: map[string]string{"Authorization": "Bearer ${GITHUB_TOKEN}"}},
			"fs":     {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."}, Env: map[string]string{"LOG": "1"}},
		},
		Templates: map[string]schema.Template{
			"reviewer": {Version: "1.2.0", Description: "Reviews pull requests", Backend: backend, Archetype: archetype,
				Skills: []string{"code-review", "hub@git-flow", "go-style"}, Prompts: []string{"role", "style"},
				MCPServers: []string{"github", "fs"}, SubAgents: []string{"tester"}, Commands: []string{"fix-issue", "hub@lint"},
				Settings:    map[string]map[string]any{backend: {"model": "m-1", "env": map[string]any{"TRACE": "1"}}},
				Vars:        map[string]string{"repo": "acme/api", "language": "Go", "tone": "neutral"},
				Permissions: schema.Permissions{Preset: schema.PresetStandard}},
			"tester": {Version: "0.1.0", Description: "Writes tests", Backend: backend, Archetype: archetype,
				Prompts: []string{"style"}, Vars: map[string]string{"tone": "terse"}},
		},
		Agents: map[string]schema.Agent{"reviewer": {Template: "reviewer", Vars: map[string]string{"tone": "friendly"}}},
	}
}

// dump renders a target as stable, human-readable text for golden files.
func dump(t *Target) string {
	var b strings.Builder
	fmt.Fprintf(&b, "agent: %s\ndir: %s\nconflict: %s\n", t.Agent, t.Dir, t.Conflict)
	for _, w := range t.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	for _, e := range t.Entries {
		switch e.Mode {
		case ModeFile:
			exec := ""
			if e.Exec {
				exec = ", exec"
			}
			fmt.Fprintf(&b, "\n=== %s (file%s)\n%s", e.Path, exec, e.Content)
		case ModeBlock:
			fmt.Fprintf(&b, "\n=== %s (block, %s)\n%s", e.Path, e.Style, e.Content)
		case ModeKeys:
			fmt.Fprintf(&b, "\n=== %s (keys, %s)\n", e.Path, e.Format)
			for _, k := range e.Keys {
				fmt.Fprintf(&b, "%s = %s\n", strings.Join(k.Path, "."), k.Value)
			}
		case ModeDir:
			fmt.Fprintf(&b, "\n=== %s (dir)\n", e.Path)
		}
	}
	return b.String()
}

// TestBuiltinMirror keeps builtinBackends true to the embedded CUE schema:
// a layout changed in one place only fails here.
func TestBuiltinMirror(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "actant.cue"), []byte("package actant\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := schema.LoadDir(dir, filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range builtinBackends() {
		if got := cfg.Backends[name].Files; !reflect.DeepEqual(got, want.Files) {
			t.Errorf("backend %s files in the schema:\n%+v\nin builtinBackends:\n%+v", name, got, want.Files)
		}
	}
}
