package main

import (
	"slices"
	"strings"
	"testing"
)

// TestImportCursorSubAgents: import takes Cursor sub-agents
// (.cursor/agents/NAME.md: name, description, model) that apply writes
// back byte for byte as sub-agent templates of the cursor agent (they
// were left, "import does not read it"); the round trip holds; one with
// a key import does not take (readonly) or a tools list (Cursor takes
// none) is left with its reason (issue #23 item 18).
func TestImportCursorSubAgents(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"AGENTS.md":                  "Cursor, be brief.\n",
		".cursor/mcp.json":           `{"mcpServers": {}}`,
		".cursor/agents/tester.md":   "---\nname: tester\ndescription: Runs the tests\nmodel: gpt-5\n---\n\nRun go test ./... and report.\n",
		".cursor/agents/plain.md":    "---\nname: plain\ndescription: Plain helper\n---\n\nHelp.\n",
		".cursor/agents/readonly.md": "---\nname: readonly\ndescription: Reads\nreadonly: true\n---\n\nRead only.\n",
		".cursor/agents/tools.md":    "---\nname: tools\ndescription: Tools\ntools: Read\n---\n\nTools.\n",
	})
	out := roundTrip(t, dir)
	for _, want := range []string{"cursor sub-agent tester", "cursor sub-agent plain"} {
		if !slices.Contains(items(out.Taken), want) {
			t.Errorf("taken %q, want %q", items(out.Taken), want)
		}
	}
	for _, want := range []string{"cursor sub-agent readonly", "cursor sub-agent tools"} {
		if !slices.Contains(items(out.Left), want) {
			t.Errorf("left %q, want %q", items(out.Left), want)
		}
	}
	for _, s := range []string{`subAgents: ["plain", "tester"]`, "tester: {\n\t\tbackend:     \"cursor\"", `model: "gpt-5"`} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
		}
	}
}

// TestImportGeminiSubAgents: import takes Gemini CLI sub-agents
// (.gemini/agents/NAME.md: name, description, kind: local, a tools list
// of Gemini's tool names, model) that apply writes back byte for byte as
// sub-agent templates of the gemini agent, the tools as Gemini's own
// (subAgent: backends: gemini: tools), since they are not the common
// names; the round trip holds; a remote agent or one with a key import
// does not take is left with its reason (issue #23 item 18).
func TestImportGeminiSubAgents(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"GEMINI.md":                "Gemini, be brief.\n",
		".gemini/agents/tester.md": "---\nname: tester\ndescription: Runs the tests\nkind: local\ntools: [\"read_file\", \"run_shell_command\"]\nmodel: gemini-2.5-pro\n---\n\nRun the tests and report.\n",
		".gemini/agents/plain.md":  "---\nname: plain\ndescription: Plain helper\nkind: local\n---\n\nHelp.\n",
		".gemini/agents/remote.md": "---\nname: remote\ndescription: Remote\nkind: remote\nagent_card_url: https://example.com/card\n---\n",
		".gemini/agents/warm.md":   "---\nname: warm\ndescription: Warm\nkind: local\ntemperature: 0.2\n---\n\nWarm.\n",
	})
	out := roundTrip(t, dir)
	for _, want := range []string{"gemini sub-agent tester", "gemini sub-agent plain"} {
		if !slices.Contains(items(out.Taken), want) {
			t.Errorf("taken %q, want %q", items(out.Taken), want)
		}
	}
	for _, want := range []string{"gemini sub-agent remote", "gemini sub-agent warm"} {
		if !slices.Contains(items(out.Left), want) {
			t.Errorf("left %q, want %q", items(out.Left), want)
		}
	}
	for _, s := range []string{`subAgents: ["plain", "tester"]`, `backends: gemini: tools: [`, `"read_file"`, `model: "gemini-2.5-pro"`} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
		}
	}
}

// TestImportCopilotSubAgents: import takes GitHub Copilot custom agents
// (.github/agents/NAME.agent.md: name, description, a tools list of
// Copilot's tool names, model) that apply writes back byte for byte as
// sub-agent templates of the copilot agent, the tools as Copilot's own
// (subAgent: backends: copilot: tools); the round trip holds; one with a
// key import does not take (target, mcp-servers, ...) or a file not named
// .agent.md is left with its reason (issue #23 item 18).
func TestImportCopilotSubAgents(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".github/copilot-instructions.md":  "Be brief.\n",
		".github/agents/tester.agent.md":   "---\nname: tester\ndescription: Runs the tests\ntools: [\"read\", \"execute\"]\nmodel: GPT-5\n---\n\nRun the tests and report.\n",
		".github/agents/plain.agent.md":    "---\nname: plain\ndescription: Plain helper\n---\n\nHelp.\n",
		".github/agents/targeted.agent.md": "---\nname: targeted\ndescription: VS Code only\ntarget: vscode\n---\n\nOnly there.\n",
		".github/agents/notes.md":          "Notes about our agents.\n",
	})
	out := roundTrip(t, dir)
	for _, want := range []string{"copilot sub-agent tester", "copilot sub-agent plain"} {
		if !slices.Contains(items(out.Taken), want) {
			t.Errorf("taken %q, want %q", items(out.Taken), want)
		}
	}
	for _, want := range []string{"copilot sub-agent targeted", "copilot sub-agent notes.md"} {
		if !slices.Contains(items(out.Left), want) {
			t.Errorf("left %q, want %q", items(out.Left), want)
		}
	}
	for _, s := range []string{`subAgents: ["plain", "tester"]`, `backends: copilot: tools: [`, `"execute"`, `model: "GPT-5"`} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
		}
	}
}

// TestImportCodexSubAgents: import takes Codex custom agents
// (.codex/agents/NAME.toml: name, description, model,
// developer_instructions) that apply writes back byte for byte as
// sub-agent templates of the codex agent; the round trip holds; one with
// a key import does not take (sandbox_mode, mcp_servers, ...) or that is
// not TOML is left with its reason (issue #23 item 18).
func TestImportCodexSubAgents(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"AGENTS.md":                    "Codex, be brief.\n",
		".codex/config.toml":           "model = \"gpt-5\"\n",
		".codex/agents/tester.toml":    "name = 'tester'\ndescription = 'Runs the tests'\nmodel = 'gpt-5-codex'\ndeveloper_instructions = \"\"\"\nRun the tests and report.\n\"\"\"\n",
		".codex/agents/sandboxed.toml": "name = 'sandboxed'\ndescription = 'Reads'\nsandbox_mode = 'read-only'\ndeveloper_instructions = '''\nRead only.\n'''\n",
		".codex/agents/broken.toml":    "name = \n",
	})
	out := roundTrip(t, dir)
	if !slices.Contains(items(out.Taken), "codex sub-agent tester") {
		t.Errorf("taken %q, want codex sub-agent tester", items(out.Taken))
	}
	for _, want := range []string{"codex sub-agent sandboxed", "codex sub-agent broken"} {
		if !slices.Contains(items(out.Left), want) {
			t.Errorf("left %q, want %q", items(out.Left), want)
		}
	}
	for _, s := range []string{`subAgents: ["tester"]`, `model: "gpt-5-codex"`, "tester: {\n\t\tbackend:     \"codex\""} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
		}
	}
}

// TestImportOpenCodeSubAgents: import takes OpenCode sub-agents
// (.opencode/agents/NAME.md: description, mode: subagent, model) that
// apply writes back byte for byte as sub-agent templates of the opencode
// agent; the round trip holds; a primary agent or one with a key import
// does not take (temperature, tools, permission, ...) is left with its
// reason (issue #23 item 18).
func TestImportOpenCodeSubAgents(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"AGENTS.md":                   "OpenCode, be brief.\n",
		"opencode.json":               `{"mcp": {}}`,
		".opencode/agents/tester.md":  "---\ndescription: Runs the tests\nmode: subagent\nmodel: anthropic/claude-sonnet-4\n---\n\nRun the tests and report.\n",
		".opencode/agents/plain.md":   "---\ndescription: Plain helper\nmode: subagent\n---\n\nHelp.\n",
		".opencode/agents/primary.md": "---\ndescription: Primary\nmode: primary\n---\n\nLead.\n",
		".opencode/agents/warm.md":    "---\ndescription: Warm\nmode: subagent\ntemperature: 0.2\n---\n\nWarm.\n",
	})
	out := roundTrip(t, dir)
	for _, want := range []string{"opencode sub-agent tester", "opencode sub-agent plain"} {
		if !slices.Contains(items(out.Taken), want) {
			t.Errorf("taken %q, want %q", items(out.Taken), want)
		}
	}
	for _, want := range []string{"opencode sub-agent primary", "opencode sub-agent warm"} {
		if !slices.Contains(items(out.Left), want) {
			t.Errorf("left %q, want %q", items(out.Left), want)
		}
	}
	for _, s := range []string{`subAgents: ["plain", "tester"]`, `model: "anthropic/claude-sonnet-4"`} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
		}
	}
}

// TestImportAntigravityAgents: import takes Antigravity custom agents
// (.agents/agents/NAME.md: name, description, a tools list of
// Antigravity's own names, model) that apply writes back byte for byte as
// sub-agent templates of the antigravity agent, the tools as its own
// (subAgent: backends: antigravity: tools, since apply writes no common
// names for it); the round trip holds; one with a key import does not
// take is left with its reason (issue #23 item 18).
func TestImportAntigravityAgents(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"AGENTS.md":                   "Antigravity, be brief.\n",
		".agents/mcp_config.json":     `{"mcpServers": {}}`,
		".agents/agents/tester.md":    "---\nname: tester\ndescription: Runs the tests\ntools: [\"view_file\", \"run_command\"]\nmodel: gemini-3-pro\n---\n\nRun the tests and report.\n",
		".agents/agents/colourful.md": "---\nname: colourful\ndescription: Colour\ncolor: blue\n---\n\nColour.\n",
	})
	out := roundTrip(t, dir)
	if !slices.Contains(items(out.Taken), "antigravity sub-agent tester") {
		t.Errorf("taken %q, want antigravity sub-agent tester", items(out.Taken))
	}
	if !slices.Contains(items(out.Left), "antigravity sub-agent colourful") {
		t.Errorf("left %q, want antigravity sub-agent colourful", items(out.Left))
	}
	for _, s := range []string{`subAgents: ["tester"]`, `backends: antigravity: tools: [`, `"run_command"`} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
		}
	}
}
