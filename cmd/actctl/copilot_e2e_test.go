package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCopilotCLIMCPE2E: a Copilot agent's MCP servers reach both of
// Copilot's readers: VS Code's .vscode/mcp.json ("servers", ${env:NAME})
// and the Copilot CLI's workspace file .github/mcp.json ("mcpServers",
// {"type": "local", command, args, env, "tools": ["*"]}; remote {"type":
// "http"|"sse", url, headers, "tools": ["*"]}), which the CLI reads since
// it stopped reading .vscode/mcp.json; the user's entries stay, a re-apply
// writes nothing, the prune leaves the user's bytes (issue #23 item 13).
func TestCopilotCLIMCPE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
mcpServers: {
	fs: {command: "npx", args: ["-y", "fs-mcp"], env: {API_KEY: "${MY_KEY}"}}
	github: {url: "https://api.githubcopilot.com/mcp/", headers: Authorization: "Bearer ${GITHUB_TOKEN}"}
	legacy: {url: "https://old.example/sse"}
}
templates: c: {backend: "copilot", mcpServers: ["fs", "github", "legacy"]}
agents: {` + agents + `}
`
	}
	type server struct {
		Type    string
		Command string
		Args    []string
		Env     map[string]string
		URL     string
		Headers map[string]string
		Tools   []string
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".github/mcp.json": "{\n  \"mcpServers\": {\n    \"mine\": {\"type\": \"local\", \"command\": \"my-mcp\", \"tools\": [\"*\"]}\n  }\n}\n"},
		with:    cfg(`c: template: "c"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			var cli struct {
				MCPServers map[string]server `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".github/mcp.json"))), &cli); err != nil {
				t.Fatal(err)
			}
			s := cli.MCPServers
			if len(s) != 4 || s["mine"].Command != "my-mcp" ||
				s["fs"].Type != "local" || s["fs"].Command != "npx" || strings.Join(s["fs"].Args, " ") != "-y fs-mcp" || s["fs"].Env["API_KEY"] != "${MY_KEY}" || strings.Join(s["fs"].Tools, ",") != "*" ||
				s["github"].Type != "http" || s["github"].URL != "https://api.githubcopilot.com/mcp/" || s["github"].Headers["Authorization"] != "Bearer ${GITHUB_TOKEN}" || strings.Join(s["github"].Tools, ",") != "*" ||
				s["legacy"].Type != "sse" {
				t.Errorf(".github/mcp.json: %+v", s)
			}
			if w := `the Copilot CLI is known to expand ${NAME} in env only; "Bearer ${GITHUB_TOKEN}" is written as is`; !strings.Contains(r.Stdout+r.Stderr, w) && !strings.Contains(r.Stdout+r.Stderr, strings.ReplaceAll(w, `"`, `\"`)) {
				t.Errorf("no warning %q in:\n%s%s", w, r.Stdout, r.Stderr)
			}
			var vs struct {
				Servers map[string]server `json:"servers"`
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".vscode/mcp.json"))), &vs); err != nil {
				t.Fatal(err)
			}
			if v := vs.Servers; len(v) != 3 || v["fs"].Type != "stdio" || v["fs"].Env["API_KEY"] != "${env:MY_KEY}" {
				t.Errorf(".vscode/mcp.json: %+v", v)
			}
		},
	})
}

// TestPathRulesE2E: a skill with paths (globs) is a path-scoped rule where
// the tool has them: GitHub Copilot's path-specific instructions
// .github/instructions/NAME.instructions.md (applyTo: the globs,
// comma-separated), Cursor's rules .cursor/rules/NAME.mdc (globs, an
// Auto Attached rule); a skill without paths stays a skill; a backend
// without path-scoped rules gets the skill and a warning that its paths
// are not written; re-apply writes nothing, the prune leaves the user's
// bytes (issue #23 item 13).
func TestPathRulesE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
skills: {
	"go-style": {description: "Go style", content: "Wrap errors with %w.", paths: ["**/*.go", "go.mod"]}
	review: {description: "Review", content: "Review carefully."}
}
templates: {
	c: {backend: "copilot", skills: ["go-style", "review"]}
	k: {backend: "cursor", skills: ["go-style"]}
	g: {backend: "gemini", skills: ["go-style"]}
}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".github/instructions/mine.instructions.md": "---\napplyTo: \"**\"\n---\nmine\n"},
		dirs:    []string{"cur", "gem"},
		with:    cfg(`c: template: "c"` + "\n" + `k: {template: "k", workDir: "cur"}` + "\n" + `g: {template: "g", workDir: "gem"}`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			if got, want := read(t, filepath.Join(dir, ".github/instructions/go-style.instructions.md")), "---\ndescription: Go style\napplyTo: \"**/*.go,go.mod\"\n---\n\nWrap errors with %w.\n"; got != want {
				t.Errorf("copilot rule:\n%s\nwant\n%s", got, want)
			}
			if got := read(t, filepath.Join(dir, ".github/skills/review/SKILL.md")); !strings.Contains(got, "Review carefully.") {
				t.Errorf("copilot skill without paths:\n%s", got)
			}
			assertNotWritten(t, dir, "a skill with paths", ".github/skills/go-style")
			if got, want := read(t, filepath.Join(dir, "cur/.cursor/rules/go-style.mdc")), "---\ndescription: Go style\nglobs: **/*.go,go.mod\nalwaysApply: false\n---\n\nWrap errors with %w.\n"; got != want {
				t.Errorf("cursor rule:\n%s\nwant\n%s", got, want)
			}
			if got := read(t, filepath.Join(dir, "gem/.gemini/skills/go-style/SKILL.md")); !strings.Contains(got, "Wrap errors") {
				t.Errorf("gemini skill:\n%s", got)
			}
			w := `skill "go-style": paths **/*.go, go.mod are not written: backend "gemini" has no path-scoped rules (files.rules)`
			if out := r.Stdout + r.Stderr; !strings.Contains(out, w) && !strings.Contains(out, strings.ReplaceAll(w, `"`, `\"`)) {
				t.Errorf("no warning %q in:\n%s", w, out)
			}
		},
	})
}

// TestPathRulesBadInputE2E: a glob holding a comma (Copilot's applyTo and
// Cursor's globs are comma-separated lists) is refused at its position,
// and nothing is written.
func TestPathRulesBadInputE2E(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `package actant
skills: x: {content: "hi", paths: ["src/**", "a,b"]}
templates: c: {backend: "copilot", skills: ["x"]}
agents: c: template: "c"
`)
	r := actctl(t, dir, "", "apply")
	want := `actant.cue:2:46: skills.x.paths[1]: glob "a,b" holds a comma or a line break: give each glob as its own entry`
	if r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("apply: exit %d, want 1 and %q:\n%s", r.Code, want, r.Stderr)
	}
	assertNotWritten(t, dir, "a bad glob", ".github", "AGENTS.md", ".actant", ".gitignore")
}

// TestImportPathRules: import takes Copilot's path-specific instructions
// and Cursor's rules that apply writes back byte for byte as skills with
// paths (they were left, "import does not read it"); the round trip
// holds (apply writes nothing, diff exits 0, every byte kept); a rule
// with a key actctl does not write, or one for every file, is left with
// its reason (issue #23 item 18, import leftovers).
func TestImportPathRules(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".github/copilot-instructions.md":            "Be brief.\n",
		".github/instructions/go.instructions.md":    "---\ndescription: Go style\napplyTo: \"**/*.go,go.mod\"\n---\n\nWrap errors.\n",
		".github/instructions/agent.instructions.md": "---\ndescription: Not for review\napplyTo: \"**\"\nexcludeAgent: code-review\n---\n\nOnly the agent.\n",
		".cursor/rules/ts.mdc":                       "---\ndescription: TypeScript\nglobs: src/**/*.ts\nalwaysApply: false\n---\n\nUse strict mode.\n",
		".cursor/rules/always.mdc":                   "---\ndescription: Always\nglobs: \nalwaysApply: true\n---\n\nAlways.\n",
		"AGENTS.md":                                  "Cursor, be brief.\n",
		".cursor/mcp.json":                           `{"mcpServers": {}}`,
	})
	out := roundTrip(t, dir)
	for _, want := range []string{"copilot rule go", "cursor rule ts"} {
		if !slices.Contains(items(out.Taken), want) {
			t.Errorf("taken %q, want %q", items(out.Taken), want)
		}
	}
	for _, want := range []string{"copilot rule agent", "cursor rule always"} {
		if !slices.Contains(items(out.Left), want) {
			t.Errorf("left %q, want %q", items(out.Left), want)
		}
	}
	for _, s := range []string{`paths: ["**/*.go", "go.mod"]`, `paths: ["src/**/*.ts"]`} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
		}
	}
}

// TestImportClaudeSubAgents: import takes Claude Code sub-agents that
// apply writes back byte for byte (name, description, tools, model, the
// prompt) as sub-agent templates the agent's template lists in
// subAgents (they were left, "import does not read it"); the round trip
// holds; a sub-agent with a key import does not take (permissionMode,
// hooks), or named like an agent, is left with its reason (issue #23
// item 18, import leftovers).
func TestImportClaudeSubAgents(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"CLAUDE.md":                     "Be careful.\n",
		".claude/agents/tester.md":      "---\nname: tester\ndescription: Runs the tests\ntools: Read, Grep, Bash\nmodel: sonnet\n---\n\nRun go test ./... and report.\n",
		".claude/agents/plain.md":       "---\nname: plain\ndescription: Plain helper\n---\n\nHelp.\n",
		".claude/agents/planner.md":     "---\nname: planner\ndescription: Plans\npermissionMode: plan\n---\n\nPlan.\n",
		".claude/agents/claude-code.md": "---\nname: claude-code\ndescription: Clash\n---\n\nClash.\n",
	})
	out := roundTrip(t, dir)
	for _, want := range []string{"claude-code sub-agent tester", "claude-code sub-agent plain"} {
		if !slices.Contains(items(out.Taken), want) {
			t.Errorf("taken %q, want %q", items(out.Taken), want)
		}
	}
	for _, want := range []string{"claude-code sub-agent planner", "claude-code sub-agent claude-code"} {
		if !slices.Contains(items(out.Left), want) {
			t.Errorf("left %q, want %q", items(out.Left), want)
		}
	}
	for _, s := range []string{`subAgents: ["plain", "tester"]`, `tools: [`, `model: "sonnet"`} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
		}
	}
}

// TestCopilotTrustNoteE2E: an apply that writes a Copilot agent's MCP
// files says, once, that VS Code and the Copilot CLI start those servers
// only in a trusted workspace; a re-apply that writes nothing says
// nothing (issue #23 item 10, trust gates).
func TestCopilotTrustNoteE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant
mcpServers: fs: {command: "fs-mcp"}
templates: c: {backend: "copilot", mcpServers: ["fs"]}
agents: c: template: "c"
`)
	r := actctl(t, dir, home, "apply")
	want := "actctl: note: VS Code starts the MCP servers of " + dir + "/.vscode/mcp.json only in a trusted workspace (its Workspace Trust prompt), and the Copilot CLI those of " + dir + "/.github/mcp.json only once you trusted the folder"
	if r.Code != 0 || strings.Count(r.Stderr, want) != 1 {
		t.Errorf("apply: exit %d, want the note once %q:\n%s", r.Code, want, r.Stderr)
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.Contains(r.Stderr, "actctl: note:") {
		t.Errorf("re-apply: exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
}
