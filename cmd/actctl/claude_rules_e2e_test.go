package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestClaudeRulesE2E: a Claude Code agent's skill with paths is written
// as a path-scoped rule, .claude/rules/NAME.md with a paths list in its
// frontmatter (docs/formats.md, Claude Code memory), not as a skill with
// a warning that its paths are not written; a skill without paths stays
// a skill; the user's own rule stays, a re-apply writes nothing, the
// prune leaves the user's bytes (issue #23, path-scoped rules).
func TestClaudeRulesE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
skills: {
	"go-style": {description: "Go style", content: "Wrap errors with %w.", paths: ["**/*.go", "go.mod", "cmd/\"q\"/*.go"]}
	review: {description: "Review", content: "Review carefully."}
}
templates: c: {backend: "claude-code", skills: ["go-style", "review"]}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".claude/rules/mine.md": "---\npaths:\n  - \"src/**\"\n---\nmine\n"},
		with:    cfg(`c: template: "c"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			want := "---\npaths:\n  - \"**/*.go\"\n  - \"go.mod\"\n  - \"cmd/\\\"q\\\"/*.go\"\n---\n\nWrap errors with %w.\n"
			if got := read(t, filepath.Join(dir, ".claude/rules/go-style.md")); got != want {
				t.Errorf("claude rule:\n%s\nwant\n%s", got, want)
			}
			if got := read(t, filepath.Join(dir, ".claude/skills/review/SKILL.md")); !strings.Contains(got, "Review carefully.") {
				t.Errorf("claude skill without paths:\n%s", got)
			}
			assertNotWritten(t, dir, "a skill with paths", ".claude/skills/go-style")
			if out := r.Stdout + r.Stderr; strings.Contains(out, "are not written") {
				t.Errorf("a warning that the paths are not written:\n%s", out)
			}
		},
	})
}

// TestImportClaudeRules: import takes Claude Code's path-scoped rules
// (.claude/rules/NAME.md with a paths list) that apply writes back byte
// for byte as skills with paths; the round trip holds (apply writes
// nothing, diff exits 0, every byte kept); a rule with a key actctl does
// not write, without paths, or in a subdirectory, is left with its reason
// (issue #23 item 18).
func TestImportClaudeRules(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"CLAUDE.md":                  "Be careful.\n",
		".claude/rules/go.md":        "---\npaths:\n  - \"**/*.go\"\n  - \"go.mod\"\n---\n\nWrap errors.\n",
		".claude/rules/always.md":    "Always test.\n",
		".claude/rules/described.md": "---\ndescription: Docs\npaths:\n  - \"docs/**\"\n---\n\nWrite plainly.\n",
		".claude/rules/front/ui.md":  "---\npaths:\n  - \"web/**\"\n---\n\nUse the design system.\n",
	})
	out := roundTrip(t, dir)
	if !slices.Contains(items(out.Taken), "claude-code rule go") {
		t.Errorf("taken %q, want claude-code rule go", items(out.Taken))
	}
	for _, want := range []string{"claude-code rule always", "claude-code rule described", "claude-code rule front"} {
		if !slices.Contains(items(out.Left), want) {
			t.Errorf("left %q, want %q", items(out.Left), want)
		}
	}
	if s := `paths: ["**/*.go","go.mod"]`; !strings.Contains(out.Config, s) {
		t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
	}
}

// TestGetSkillsPaths: get skills -o json shows a skill's paths (the
// files it is about, written as a path-scoped rule where the tool has
// them), and no paths key for a skill without them; docs/json.md's row
// says so (issue #23, path-scoped rules).
func TestGetSkillsPaths(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `package actant
skills: {
	"go-style": {description: "Go style", content: "Wrap errors.", paths: ["**/*.go", "go.mod"]}
	review: {description: "Review", content: "Review carefully."}
}
`)
	r := actctl(t, dir, "", "-o", "json", "get", "skills")
	if r.Code != 0 {
		t.Fatalf("get skills: exit %d\n%s", r.Code, r.Stderr)
	}
	checkJSONOutput(t, "get skills", r.Stdout)
	var got []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"name": "go-style", "description": "Go style", "files": []any{}, "paths": []any{"**/*.go", "go.mod"}},
		{"name": "review", "description": "Review", "files": []any{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("get skills -o json:\n%v\nwant\n%v", got, want)
	}
}

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
	for _, s := range []string{`subAgents: ["plain","tester"]`, "\"tester\": {\n\t\tbackend: \"cursor\"", `"model": "gpt-5"`} {
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
	for _, s := range []string{`subAgents: ["plain","tester"]`, `"tools": [`, `"read_file"`, `"model": "gemini-2.5-pro"`, `"backends": {`} {
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
	for _, s := range []string{`subAgents: ["plain","tester"]`, `"copilot": {`, `"execute"`, `"model": "GPT-5"`} {
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
	for _, s := range []string{`subAgents: ["tester"]`, `"model": "gpt-5-codex"`, "\"tester\": {\n\t\tbackend: \"codex\""} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
		}
	}
}
