package main

import (
	"slices"
	"testing"
)

// TestImportNewTools: import takes back what Factory Droid, Auggie, Warp,
// Zed's own agent, JetBrains AI Assistant, Crush, Mistral Vibe, Kimi Code,
// Rovo Dev, Deep Agents Code, Grok Build and Zoo Code read in a repository (instructions, skills, commands, custom
// droids and agents, MCP servers, settings), and apply then writes
// nothing: each is a row of importer.Backends (issue #34 item 9).
func TestImportNewTools(t *testing.T) {
	skill := "---\nname: s\ndescription: Does s.\n---\n# S\nDo s.\n"
	cases := []struct {
		name  string
		tree  map[string]string
		taken []string
	}{
		{"factory", map[string]string{
			"AGENTS.md":                  "Droid, be brief.\n",
			".factory/skills/s/SKILL.md": skill,
			".factory/commands/test.md":  "---\ndescription: Run the tests\n---\n\nRun them.\n",
			".factory/droids/helper.md":  "---\nname: helper\ndescription: Helps\ntools: [\"Read\", \"Execute\"]\n---\n\nHelp.\n",
			".factory/mcp.json":          `{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}, "web": {"type": "http", "url": "https://example.com/mcp"}}}`,
			".factory/settings.json":     `{"model": "gpt-5"}`,
		}, []string{"factory instructions factory", "factory skill s", "factory command test", "factory sub-agent helper", "factory mcp fs", "factory mcp web", "factory settings model"}},
		{"auggie", map[string]string{
			"AGENTS.md":                  "Auggie, be brief.\n",
			".augment/skills/s/SKILL.md": skill,
			".augment/commands/test.md":  "---\ndescription: Run the tests\n---\n\nRun them.\n",
			".augment/agents/helper.md":  "---\nname: helper\ndescription: Helps\n---\n\nHelp.\n",
			".augment/settings.json":     `{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}}, "model": "sonnet4.5"}`,
		}, []string{"auggie instructions auggie", "auggie skill s", "auggie command test", "auggie sub-agent helper", "auggie mcp fs", "auggie settings model"}},
		{"warp", map[string]string{
			"AGENTS.md":               "Warp, be brief.\n",
			".warp/skills/s/SKILL.md": skill,
			".warp/.mcp.json":         `{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}, "web": {"url": "https://example.com/mcp"}}}`,
		}, []string{"warp instructions warp", "warp skill s", "warp mcp fs", "warp mcp web"}},
		{"zed", map[string]string{
			".rules":             "Zed, be brief.\n",
			".zed/settings.json": `{"context_servers": {"fs": {"command": "npx", "args": ["fs"]}, "web": {"url": "https://example.com/mcp"}}, "tab_size": 2}`,
		}, []string{"zed instructions zed", "zed mcp fs", "zed mcp web", "zed settings tab_size"}},
		{"aiassistant", map[string]string{
			"AGENTS.md":        "Be brief.\n",
			".ai/mcp/mcp.json": `{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}}}`,
		}, []string{"aiassistant instructions aiassistant", "aiassistant mcp fs"}},
		{"crush", map[string]string{
			"CRUSH.md":                 "Crush, be brief.\n",
			".crush/skills/s/SKILL.md": skill,
			".crush.json":              `{"mcp": {"fs": {"type": "stdio", "command": "npx", "args": ["fs"]}, "gh": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer $GH_PAT"}}}, "options": {"debug": true}}`,
		}, []string{"crush instructions crush", "crush skill s", "crush mcp fs", "crush mcp gh", "crush settings options"}},
		{"vibe", map[string]string{
			"AGENTS.md":               "Vibe, be brief.\n",
			".vibe/skills/s/SKILL.md": skill,
		}, []string{"vibe instructions vibe", "vibe skill s"}},
		{"kimi", map[string]string{
			".kimi-code/AGENTS.md":         "Kimi, be brief.\n",
			".kimi-code/skills/s/SKILL.md": skill,
			".kimi-code/mcp.json":          `{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}, "linear": {"url": "https://mcp.linear.app/mcp"}}}`,
		}, []string{"kimi instructions kimi", "kimi skill s", "kimi mcp fs", "kimi mcp linear"}},
		{"rovodev", map[string]string{
			"AGENTS.md":                      "Rovo, be brief.\n",
			".rovodev/skills/s/SKILL.md":     skill,
			".rovodev/subagents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\ntools: [\"open_files\", \"grep\", \"bash\"]\n---\n\nYou review code.\n",
		}, []string{"rovodev instructions rovodev", "rovodev skill s", "rovodev sub-agent reviewer"}},
		{"deepagents", map[string]string{
			".deepagents/AGENTS.md":         "Be brief.\n",
			".deepagents/skills/s/SKILL.md": skill,
			".deepagents/.mcp.json":         `{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}, "docs": {"type": "http", "url": "https://docs.langchain.com/mcp"}}}`,
		}, []string{"deepagents instructions deepagents", "deepagents skill s", "deepagents mcp fs", "deepagents mcp docs"}},
		{"grok", map[string]string{
			"AGENTS.md":                "Grok, be brief.\n",
			".grok/skills/s/SKILL.md":  skill,
			".grok/commands/test.md":   "---\ndescription: Run the tests\n---\n\nRun them.\n",
			".grok/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\nmodel: grok-code-fast\n---\n\nYou review code.\n",
			".grok/config.toml":        "[mcp_servers.fs]\ncommand = \"npx\"\nargs = [\"fs\"]\n",
		}, []string{"grok instructions grok", "grok skill s", "grok command test", "grok sub-agent reviewer", "grok mcp fs"}},
		{"zoo", map[string]string{
			"AGENTS.md":              "Zoo, be brief.\n",
			".roo/skills/s/SKILL.md": skill,
			".roo/commands/test.md":  "---\ndescription: Run the tests\n---\n\nRun them.\n",
			".roo/mcp.json":          `{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}, "web": {"type": "streamable-http", "url": "https://example.com/mcp"}}}`,
		}, []string{"zoo instructions zoo", "zoo skill s", "zoo command test", "zoo mcp fs", "zoo mcp web"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, c.tree)
			out := roundTrip(t, dir)
			got := items(out.Taken)
			for _, want := range c.taken {
				if !slices.Contains(got, want) {
					t.Errorf("taken %q, want %q (left %+v)", got, want, out.Left)
				}
			}
			if len(out.Left) != 0 {
				t.Errorf("left %+v", out.Left)
			}
		})
	}
}
