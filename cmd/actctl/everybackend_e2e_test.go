package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"
)

// everyBackend lists, per built-in backend, the files one agent with a
// dir skill, a command, a sub-agent, a stdio and a remote MCP server, an
// ignore list, a preset and settings must get.
var everyBackend = map[string][]string{
	"claude-code":  {"CLAUDE.md", ".claude/skills/pdf/SKILL.md", ".claude/skills/pdf/scripts/fill.py", ".claude/commands/fix-issue.md", ".claude/agents/tester.md", ".mcp.json", ".claude/settings.json"},
	"codex":        {"AGENTS.md", ".agents/skills/pdf/SKILL.md", ".agents/skills/pdf/scripts/fill.py", ".codex/agents/tester.toml", ".codex/config.toml"},
	"gemini":       {"GEMINI.md", ".gemini/skills/pdf/SKILL.md", ".gemini/skills/pdf/scripts/fill.py", ".gemini/commands/fix-issue.toml", ".gemini/agents/tester.md", ".gemini/settings.json", ".geminiignore"},
	"antigravity":  {"AGENTS.md", ".agents/skills/pdf/SKILL.md", ".agents/skills/pdf/scripts/fill.py", ".agents/workflows/fix-issue.md", ".agents/agents/tester.md", ".agents/mcp_config.json", ".agents/hooks.json", ".geminiignore"},
	"cursor":       {"AGENTS.md", ".cursor/skills/pdf/SKILL.md", ".cursor/skills/pdf/scripts/fill.py", ".cursor/commands/fix-issue.md", ".cursor/agents/tester.md", ".cursor/mcp.json", ".cursorignore"},
	"cursor-agent": {"AGENTS.md", ".cursor/skills/pdf/SKILL.md", ".cursor/skills/pdf/scripts/fill.py", ".cursor/commands/fix-issue.md", ".cursor/agents/tester.md", ".cursor/mcp.json", ".cursor/cli.json", ".cursorignore"},
	"pi":           {"AGENTS.md", ".pi/skills/pdf/SKILL.md", ".pi/skills/pdf/scripts/fill.py", ".pi/prompts/fix-issue.md", ".pi/mcp.json", ".pi/settings.json"},
	"copilot":      {".github/copilot-instructions.md", ".github/skills/pdf/SKILL.md", ".github/skills/pdf/scripts/fill.py", ".github/prompts/fix-issue.prompt.md", ".github/agents/tester.agent.md", ".vscode/mcp.json"},
	"opencode":     {"AGENTS.md", ".agents/skills/pdf/SKILL.md", ".agents/skills/pdf/scripts/fill.py", ".opencode/commands/fix-issue.md", ".opencode/agents/tester.md", "opencode.json"},
	"devin":        {"AGENTS.md", ".devin/skills/pdf/SKILL.md", ".devin/skills/pdf/scripts/fill.py", ".devin/skills/fix-issue/SKILL.md", ".devin/agents/tester/AGENT.md", ".devin/mcp_config.json", ".devin/config.json", ".devinignore"},
	"cline":        {"AGENTS.md", ".cline/skills/pdf/SKILL.md", ".cline/skills/pdf/scripts/fill.py", ".clinerules/workflows/fix-issue.md", ".cline/agents/tester.yaml", ".clineignore"},
	"kiro":         {"AGENTS.md", ".kiro/skills/pdf/SKILL.md", ".kiro/skills/pdf/scripts/fill.py", ".kiro/prompts/fix-issue.md", ".kiro/agents/tester.md", ".kiro/settings/mcp.json", ".kiroignore"},
	"amp":          {"AGENTS.md", ".agents/skills/pdf/SKILL.md", ".agents/skills/pdf/scripts/fill.py", ".amp/settings.json"},
	"qwen":         {"QWEN.md", ".qwen/skills/pdf/SKILL.md", ".qwen/skills/pdf/scripts/fill.py", ".qwen/commands/fix-issue.md", ".qwen/agents/tester.md", ".qwen/settings.json", ".qwenignore"},
	"goose":        {"AGENTS.md", ".agents/skills/pdf/SKILL.md", ".agents/skills/pdf/scripts/fill.py", ".agents/agents/tester.md", ".agents/plugins/actctl/.mcp.json"},
	"kilo":         {"AGENTS.md", ".kilo/skills/pdf/SKILL.md", ".kilo/skills/pdf/scripts/fill.py", ".kilo/commands/fix-issue.md", ".kilo/agents/tester.md", "kilo.json", ".kilocodeignore"},
	"junie":        {"AGENTS.md", ".junie/skills/pdf/SKILL.md", ".junie/skills/pdf/scripts/fill.py", ".junie/commands/fix-issue.md", ".junie/agents/tester.md", ".junie/mcp/mcp.json", ".aiignore"},
	"factory":      {"AGENTS.md", ".factory/skills/pdf/SKILL.md", ".factory/skills/pdf/scripts/fill.py", ".factory/commands/fix-issue.md", ".factory/droids/tester.md", ".factory/mcp.json", ".factory/settings.json"},
	"auggie":       {"AGENTS.md", ".augment/skills/pdf/SKILL.md", ".augment/skills/pdf/scripts/fill.py", ".augment/commands/fix-issue.md", ".augment/agents/tester.md", ".augment/settings.json", ".augmentignore"},
	"zed":          {".rules", ".agents/skills/pdf/SKILL.md", ".agents/skills/pdf/scripts/fill.py", ".zed/settings.json"},
	"aiassistant":  {"AGENTS.md", ".agents/skills/pdf/SKILL.md", ".agents/skills/pdf/scripts/fill.py", ".ai/mcp/mcp.json", ".aiignore"},
	"crush":        {"CRUSH.md", ".crush/skills/pdf/SKILL.md", ".crush/skills/pdf/scripts/fill.py", ".crush.json", ".crushignore"},
	"vibe":         {"AGENTS.md", ".vibe/skills/pdf/SKILL.md", ".vibe/skills/pdf/scripts/fill.py", ".vibe/config.toml", ".vibeignore"},
	"kimi":         {".kimi-code/AGENTS.md", ".kimi-code/skills/pdf/SKILL.md", ".kimi-code/skills/pdf/scripts/fill.py", ".kimi-code/mcp.json"},
	"rovodev":      {"AGENTS.md", ".rovodev/skills/pdf/SKILL.md", ".rovodev/skills/pdf/scripts/fill.py", ".rovodev/subagents/tester.md"},
	"deepagents":   {".deepagents/AGENTS.md", ".deepagents/skills/pdf/SKILL.md", ".deepagents/skills/pdf/scripts/fill.py", ".deepagents/agents/tester/AGENTS.md", ".deepagents/.mcp.json"},
	"grok":         {"AGENTS.md", ".grok/skills/pdf/SKILL.md", ".grok/skills/pdf/scripts/fill.py", ".grok/commands/fix-issue.md", ".grok/agents/tester.md", ".grok/config.toml"},
	"zoo":          {"AGENTS.md", ".roo/skills/pdf/SKILL.md", ".roo/skills/pdf/scripts/fill.py", ".roo/commands/fix-issue.md", ".roo/mcp.json", ".rooignore"},
	"warp":         {"AGENTS.md", ".warp/skills/pdf/SKILL.md", ".warp/skills/pdf/scripts/fill.py", ".warp/skills/fix-issue/SKILL.md", ".warp/.mcp.json", ".warpindexingignore"},
}

// promptOnly are the backends whose command files hold the prompt alone
// (format plain: the tool reads no frontmatter, docs/formats.md).
var promptOnly = map[string]bool{"cline": true, "kiro": true}

func everyBackendConfig(withAgents bool) string {
	var b strings.Builder
	b.WriteString(`package actant
skills: pdf: dir: "skills/pdf"
commands: "fix-issue": {description: "Fix an issue", content: "Fix #$ARGUMENTS"}
prompts: tests: content: "Write tests."
mcpServers: {
	fs: {command: "fs-mcp", args: ["."], env: {TOKEN: "${TOKEN}", LEVEL: "debug"}}
	docs: {url: "https://docs.example/mcp", headers: Authorization: "Bearer ${DOCS_TOKEN}"}
}
archetypes: tool: interactionModes: ["open"]
ignore: secrets: patterns: [".env", "secrets/"]
_all: {skills: ["pdf"], commands: ["fix-issue"], subAgents: ["tester"], mcpServers: ["fs", "docs"], ignore: ["secrets"], permissions: "readonly"}
templates: tester: {backend: "claude-code", description: "Writes tests", prompts: ["tests"]}
`)
	names := slices.Sorted(maps.Keys(everyBackend))
	for _, n := range names {
		fmt.Fprintf(&b, "templates: %q: _all & {backend: %q, settings: %q: {x_actctl: {on: true}}}\n", "t-"+n, n, n)
		if withAgents {
			fmt.Fprintf(&b, "agents: %q: {template: %q, workDir: %q}\n", "a-"+n, "t-"+n, n)
		}
	}
	return b.String()
}

// TestEveryBackendE2E applies one workspace with every artifact kind to
// every built-in backend, reads back every file written (YAML
// frontmatter, TOML, JSON), re-applies (nothing written) and prunes to
// the user's exact bytes.
func TestEveryBackendE2E(t *testing.T) {
	user := map[string]string{
		"skills/pdf/SKILL.md":               richSkillMD,
		"skills/pdf/scripts/fill.py":        "#!/usr/bin/env python3\n",
		"claude-code/.claude/settings.json": "{\n  \"theme\": \"dark\"\n}\n",
		"codex/.codex/config.toml":          "# mine\nmodel = \"gpt-5\"\n",
		"gemini/GEMINI.md":                  "# Notes\n",
		"copilot/.vscode/mcp.json":          "{\n  \"servers\": {\n    \"mine\": {\"type\": \"stdio\", \"command\": \"my-mcp\"}\n  }\n}\n",
		"opencode/opencode.json":            "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"theme\": \"opencode\"\n}\n",
		"kilo/kilo.json":                    "{\n  \"$schema\": \"https://app.kilo.ai/config.json\"\n}\n",
		"amp/.amp/settings.json":            "{\n  \"amp.notifications.enabled\": false\n}\n",
		"kiro/AGENTS.md":                    "# Team notes\n",
		"auggie/.augment/settings.json":     "{\n  \"model\": \"mine\"\n}\n",
	}
	runArtifact(t, artifactCase{
		user:    user,
		exec:    []string{"skills/pdf/scripts/fill.py"},
		dirs:    slices.Sorted(maps.Keys(everyBackend)),
		with:    everyBackendConfig(true),
		without: everyBackendConfig(false),
		check: func(t *testing.T, dir string, r result) {
			for backend, files := range everyBackend {
				base := filepath.Join(dir, backend)
				for _, f := range files {
					p := filepath.Join(base, f)
					if _, err := os.Stat(p); err != nil {
						t.Errorf("%s: %v", backend, err)
						continue
					}
					if strings.HasSuffix(f, "fill.py") {
						mustMode(t, p, 0o755)
					}
					// Every command file keeps the command's description
					// (frontmatter, TOML or SKILL.md): the tool shows it.
					if strings.Contains(f, "fix-issue") && !promptOnly[backend] && !strings.Contains(read(t, p), "description: Fix an issue") && !strings.Contains(read(t, p), `description = 'Fix an issue'`) {
						t.Errorf("%s: %s lost the command's description:\n%s", backend, f, read(t, p))
					}
				}
				checkParses(t, base)
			}
			codex := read(t, filepath.Join(dir, "codex/.codex/config.toml"))
			if strings.Contains(codex, "${") || !strings.HasPrefix(codex, "# mine\n") {
				t.Errorf("codex config.toml:\n%s", codex)
			}
			if ign := read(t, filepath.Join(dir, "gemini/.geminiignore")); !strings.Contains(ign, "\n.env\nsecrets/\n") {
				t.Errorf("gemini .geminiignore:\n%s", ign)
			}
			if cc := read(t, filepath.Join(dir, "claude-code/.claude/settings.json")); !strings.Contains(cc, `"Read(.env)"`) || !strings.Contains(cc, `"theme": "dark"`) {
				t.Errorf("claude-code settings.json:\n%s", cc)
			}
			checkCopilotMCP(t, filepath.Join(dir, "copilot/.vscode/mcp.json"))
			checkOpenCodeConfig(t, filepath.Join(dir, "opencode/opencode.json"))
			checkOpenCodeConfig(t, filepath.Join(dir, "kilo/kilo.json"))
			checkMCPServers(t, filepath.Join(dir, "devin/.devin/mcp_config.json"), "mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "kiro/.kiro/settings/mcp.json"), "mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "junie/.junie/mcp/mcp.json"), "mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "factory/.factory/mcp.json"), "mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "auggie/.augment/settings.json"), "mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "warp/.warp/.mcp.json"), "mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "zed/.zed/settings.json"), "context_servers", "url")
			checkMCPServers(t, filepath.Join(dir, "aiassistant/.ai/mcp/mcp.json"), "mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "crush/.crush.json"), "mcp", "url")
			checkMCPServers(t, filepath.Join(dir, "kimi/.kimi-code/mcp.json"), "mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "deepagents/.deepagents/.mcp.json"), "mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "zoo/.roo/mcp.json"), "mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "amp/.amp/settings.json"), "amp.mcpServers", "url")
			checkMCPServers(t, filepath.Join(dir, "qwen/.qwen/settings.json"), "mcpServers", "httpUrl")
			if qs := read(t, filepath.Join(dir, "qwen/.qwen/settings.json")); !strings.Contains(qs, `"approvalMode": "plan"`) {
				t.Errorf("qwen settings.json lacks the readonly preset:\n%s", qs)
			}
			var grok struct {
				Servers map[string]map[string]any `toml:"mcp_servers"`
			}
			if err := toml.Unmarshal([]byte(read(t, filepath.Join(dir, "grok/.grok/config.toml"))), &grok); err != nil || grok.Servers["fs"]["command"] != "fs-mcp" || grok.Servers["docs"]["url"] != "https://docs.example/mcp" {
				t.Errorf("grok config.toml %v: %v", err, grok.Servers)
			}
			if fix := read(t, filepath.Join(dir, "cline/.clinerules/workflows/fix-issue.md")); fix != "Fix #$ARGUMENTS\n" {
				t.Errorf("cline workflow: %q", fix)
			}
		},
	})
}

// checkParses reads back every file under dir in its format.
func checkParses(t *testing.T, dir string) {
	t.Helper()
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		switch {
		case strings.HasSuffix(p, ".json"):
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Errorf("%s: %v\n%s", p, err, b)
			}
		case strings.HasSuffix(p, ".toml"):
			var v map[string]any
			if err := toml.Unmarshal(b, &v); err != nil {
				t.Errorf("%s: %v\n%s", p, err, b)
			}
		case strings.HasSuffix(p, ".md") && strings.HasPrefix(string(b), "---\n"):
			fm, _, ok := strings.Cut(strings.TrimPrefix(string(b), "---\n"), "\n---\n")
			var v map[string]any
			if err := yaml.Unmarshal([]byte(fm), &v); !ok || err != nil || v["description"] == nil {
				t.Errorf("%s: frontmatter %v %v\n%s", p, ok, err, b)
			}
		}
		return nil
	})
}

// checkCopilotMCP reads .vscode/mcp.json back in VS Code's shape: the
// servers table, typed entries, ${env:NAME}; the user's server kept.
func checkCopilotMCP(t *testing.T, p string) {
	t.Helper()
	var v struct {
		Servers map[string]struct {
			Type    string            `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"servers"`
	}
	if err := json.Unmarshal([]byte(read(t, p)), &v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	fs, docs, mine := v.Servers["fs"], v.Servers["docs"], v.Servers["mine"]
	if fs.Type != "stdio" || fs.Command != "fs-mcp" || fs.Env["TOKEN"] != "${env:TOKEN}" || fs.Env["LEVEL"] != "debug" ||
		docs.Type != "http" || docs.URL != "https://docs.example/mcp" || docs.Headers["Authorization"] != "Bearer ${env:DOCS_TOKEN}" ||
		mine.Command != "my-mcp" {
		t.Errorf("%s:\n%s", p, read(t, p))
	}
}

// checkOpenCodeConfig reads opencode.json back in OpenCode's shape: mcp
// entries with one command array, environment, {env:NAME}; the mode as
// permission actions; the user's keys kept.
func checkOpenCodeConfig(t *testing.T, p string) {
	t.Helper()
	var v struct {
		Schema string `json:"$schema"`
		MCP    map[string]struct {
			Type        string            `json:"type"`
			Command     []string          `json:"command"`
			Environment map[string]string `json:"environment"`
			Enabled     bool              `json:"enabled"`
			URL         string            `json:"url"`
			Headers     map[string]string `json:"headers"`
		} `json:"mcp"`
		Permission map[string]string `json:"permission"`
	}
	if err := json.Unmarshal([]byte(read(t, p)), &v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	fs, docs := v.MCP["fs"], v.MCP["docs"]
	if v.Schema == "" || fs.Type != "local" || strings.Join(fs.Command, " ") != "fs-mcp ." || fs.Environment["TOKEN"] != "{env:TOKEN}" || !fs.Enabled ||
		docs.Type != "remote" || docs.Headers["Authorization"] != "Bearer {env:DOCS_TOKEN}" || !docs.Enabled ||
		v.Permission["edit"] != "deny" {
		t.Errorf("%s:\n%s", p, read(t, p))
	}
}

// checkMCPServers reads an mcpServers-style file back in the generic
// shape under key (Amp's is the one dotted key "amp.mcpServers"): the
// stdio server's command, args and env, the remote one under urlKey
// (url; Qwen Code's httpUrl) with its headers, ${VAR} kept for the tool.
func checkMCPServers(t *testing.T, p, key, urlKey string) {
	t.Helper()
	var v map[string]json.RawMessage
	var servers map[string]map[string]any
	if err := json.Unmarshal([]byte(read(t, p)), &v); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	if err := json.Unmarshal(v[key], &servers); err != nil {
		t.Fatalf("%s: %s: %v", p, key, err)
	}
	fs, docs := servers["fs"], servers["docs"]
	env, _ := fs["env"].(map[string]any)
	headers, _ := docs["headers"].(map[string]any)
	if fs["command"] != "fs-mcp" || fmt.Sprint(fs["args"]) != "[.]" || env["TOKEN"] != "${TOKEN}" ||
		docs[urlKey] != "https://docs.example/mcp" || headers["Authorization"] != "Bearer ${DOCS_TOKEN}" {
		t.Errorf("%s:\n%s", p, read(t, p))
	}
}
