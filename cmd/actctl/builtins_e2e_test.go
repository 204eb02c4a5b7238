package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// frontmatterOf parses the YAML frontmatter of the markdown file at p.
func frontmatterOf(t *testing.T, p string) map[string]any {
	t.Helper()
	rest, ok := strings.CutPrefix(read(t, p), "---\n")
	fm, _, closed := strings.Cut(rest, "\n---\n")
	if !ok || !closed {
		t.Fatalf("%s: no frontmatter", p)
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(fm), &m); err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return m
}

// TestSubAgentToolsE2E: one sub-agent template in Claude Code's names,
// used by a Gemini CLI, a Codex and a Claude Code agent: Gemini gets its
// own tool names (the ones its loader accepts), no backend but Claude
// gets the alias "sonnet" (each says so), and a backend's own model is
// written as given (issue #23 item 4).
func TestSubAgentToolsE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
templates: {
	tester: {backend: "claude-code", description: "Writes tests", subAgent: {tools: ["Read", "Grep", "Bash"], model: "sonnet", backends: codex: model: "gpt-5.5"}}
	gm: {backend: "gemini", subAgents: ["tester"]}
	cx: {backend: "codex", subAgents: ["tester"]}
	cc: {backend: "claude-code", subAgents: ["tester"]}
}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{"gm/README.md": "gm\n", "cx/README.md": "cx\n", "cc/README.md": "cc\n"},
		with:    cfg(`gm: {template: "gm", workDir: "gm"}, cx: {template: "cx", workDir: "cx"}, cc: {template: "cc", workDir: "cc"}`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			gm := frontmatterOf(t, filepath.Join(dir, "gm/.gemini/agents/tester.md"))
			if tools, _ := gm["tools"].([]any); len(tools) != 3 || tools[0] != "read_file" || tools[1] != "grep_search" || tools[2] != "run_shell_command" || gm["model"] != nil {
				t.Errorf("gemini sub-agent: %v", gm)
			}
			if cx := read(t, filepath.Join(dir, "cx/.codex/agents/tester.toml")); !strings.Contains(cx, "model = 'gpt-5.5'") {
				t.Errorf("codex sub-agent:\n%s", cx)
			}
			cc := frontmatterOf(t, filepath.Join(dir, "cc/.claude/agents/tester.md"))
			if cc["tools"] != "Read, Grep, Bash" || cc["model"] != "sonnet" {
				t.Errorf("claude sub-agent: %v", cc)
			}
			out := r.Stdout + r.Stderr
			if !strings.Contains(out, `model "sonnet" is a Claude Code alias that gemini does not know`) || strings.Contains(out, "that codex does not know") {
				t.Errorf("warnings:\n%s", out)
			}
		},
	})
}

// TestCursorPermissionTokensE2E: rules in Claude Code's syntax reach
// Cursor CLI's .cursor/cli.json as Cursor's tokens; a rule Cursor cannot
// say is named in a warning and not written (issue #23 item 2).
func TestCursorPermissionTokensE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
templates: ca: {backend: "cursor-agent", permissions: {
	defaultMode: "default"
	allow: ["WebFetch(domain:example.com)", "mcp__github__get_issue", "Read(./src/**)", "Bash(go:*)"]
	deny: ["Bash(git push:*)", "Edit(//etc/**)"]
}}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".cursor/cli.json": "{\n  \"version\": 1\n}\n"},
		with:    cfg(`ca: template: "ca"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			var cli struct {
				Version     int
				Permissions struct{ Allow, Deny []string }
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".cursor/cli.json"))), &cli); err != nil {
				t.Fatal(err)
			}
			allow := strings.Join(cli.Permissions.Allow, " ")
			if cli.Version != 1 || allow != "Read(**) WebFetch(example.com) Mcp(github:get_issue) Read(src/**) Shell(go)" ||
				strings.Join(cli.Permissions.Deny, " ") != "Write(/etc/**)" {
				t.Errorf("cli.json: %+v", cli)
			}
			if out := r.Stdout + r.Stderr; !strings.Contains(out, `permission rule \"Bash(git push:*)\" has no Cursor CLI form`) &&
				!strings.Contains(out, `permission rule "Bash(git push:*)" has no Cursor CLI form`) {
				t.Errorf("warnings:\n%s", out)
			}
		},
	})
}

// TestSharedSkillsE2E: Codex, OpenCode and Gemini CLI agents in one
// directory with one skill: it is written once, to the .agents/skills
// all three read (no "file is owned by two agents", no second copy in
// .gemini/skills); removing the agent that owned it hands it to the next
// without a gap, and removing all gives the user's files back (issue #23
// item 12).
func TestSharedSkillsE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
skills: pdf: dir: "skills/pdf"
templates: {
	cx: {backend: "codex", skills: ["pdf"]}
	oc: {backend: "opencode", skills: ["pdf"]}
	gm: {backend: "gemini", skills: ["pdf"]}
}
agents: {` + agents + `}
`
	}
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	user := map[string]string{"skills/pdf/SKILL.md": richSkillMD, "AGENTS.md": "# Mine\n"}
	writeFiles(t, dir, user)
	skillFiles := func() string {
		var out []string
		for _, f := range filesExceptMeta(t, dir) {
			if strings.Contains(f, "/skills/") && !strings.HasPrefix(f, "skills/") {
				out = append(out, f)
			}
		}
		return strings.Join(out, ",")
	}
	writeConfig(t, dir, cfg(`cx: template: "cx", oc: template: "oc", gm: template: "gm"`))
	if r := actctl(t, dir, home, "validate"); r.Code != 0 {
		t.Fatalf("validate: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	mustApply(t, dir, home)
	if got := skillFiles(); got != ".agents/skills/pdf/SKILL.md" {
		t.Fatalf("skill files: %s", got)
	}
	if got := read(t, filepath.Join(dir, ".agents/skills/pdf/SKILL.md")); got != wantSkillMD {
		t.Errorf("SKILL.md:\n%s", got)
	}
	if res := mustApply(t, dir, home); res.Counts.Changed != 0 {
		t.Errorf("second apply changed %+v", res.Items)
	}
	writeConfig(t, dir, cfg(`oc: template: "oc", gm: template: "gm"`))
	mustApply(t, dir, home)
	if got := skillFiles(); got != ".agents/skills/pdf/SKILL.md" {
		t.Errorf("without cx: %s", got)
	}
	writeConfig(t, dir, cfg(`gm: template: "gm"`))
	mustApply(t, dir, home)
	if got := skillFiles(); got != ".gemini/skills/pdf/SKILL.md" {
		t.Errorf("gemini alone: %s", got)
	}
	writeConfig(t, dir, cfg(""))
	mustApply(t, dir, home)
	if got := strings.Join(filesExceptMeta(t, dir), ","); got != "AGENTS.md,actant.cue,skills/pdf/SKILL.md" {
		t.Errorf("after prune: %s", got)
	}
	if got := read(t, filepath.Join(dir, "AGENTS.md")); got != user["AGENTS.md"] {
		t.Errorf("AGENTS.md after prune: %q", got)
	}
}

// TestPiMCPE2E: Pi's built-in MCP: .pi/mcp.json gets mcpServers in Pi's
// shape (stdio {command, args, env}, remote {url, headers}, ${NAME} kept
// where Pi expands it); an SSE server is left out, a name Pi refuses is
// renamed, ${NAME} in args is warned about; the user's own server stays
// and prune gives the file back (issue #23 item 5).
func TestPiMCPE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
mcpServers: {
	fs: {command: "npx", args: ["-y", "fs-mcp", "${HOME}/src"], env: {API_KEY: "${MY_KEY}", LOG: "1"}}
	github: {url: "https://api.githubcopilot.com/mcp/", headers: Authorization: "Bearer ${GITHUB_TOKEN}"}
	legacy: {url: "https://old.example/sse"}
	"docs.v2": {command: "docs-mcp"}
}
templates: p: {backend: "pi", mcpServers: ["fs", "github", "legacy", "docs.v2"]}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".pi/mcp.json": "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"my-mcp\"}\n  }\n}\n"},
		with:    cfg(`p: template: "p"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			var v struct {
				MCPServers map[string]struct {
					Command string
					Args    []string
					Env     map[string]string
					URL     string
					Headers map[string]string
				} `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".pi/mcp.json"))), &v); err != nil {
				t.Fatal(err)
			}
			s := v.MCPServers
			if len(s) != 4 || s["mine"].Command != "my-mcp" || s["docs_v2"].Command != "docs-mcp" ||
				s["fs"].Command != "npx" || strings.Join(s["fs"].Args, " ") != "-y fs-mcp ${HOME}/src" || s["fs"].Env["API_KEY"] != "${MY_KEY}" ||
				s["github"].URL != "https://api.githubcopilot.com/mcp/" || s["github"].Headers["Authorization"] != "Bearer ${GITHUB_TOKEN}" {
				t.Errorf(".pi/mcp.json: %+v", s)
			}
			out := r.Stdout + r.Stderr
			for _, w := range []string{
				`mcp server \"legacy\": Pi does not support the SSE transport`,
				`pi accepts server names matching ^[A-Za-z0-9_-]+$ only, so it is written as \"docs_v2\"`,
				`Pi expands ${NAME} in env and headers only; \"${HOME}/src\" is written as is`,
			} {
				if !strings.Contains(out, w) && !strings.Contains(out, strings.ReplaceAll(w, `\"`, `"`)) {
					t.Errorf("no warning %q in:\n%s", w, out)
				}
			}
		},
	})
}

// TestAntigravityWorkflowsE2E: Antigravity's commands are workflows in
// .agents/workflows (a slash command the model never runs on its own),
// not skills; its sub-agents are custom agents in .agents/agents, with
// only the tools and model it knows; the documented ACP opt-in (Google's
// agy_acp_server) resolves (issue #23 item 6).
func TestAntigravityWorkflowsE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
backends: antigravity: {modes: ["open", "acp", "resolve"], acp: command: "agy_acp_server"}
commands: "fix-issue": {description: "Fix a GitHub issue", content: "Fix issue #$ARGUMENTS."}
templates: {
	tester: {backend: "claude-code", description: "Writes tests", subAgent: {tools: ["Read"], model: "inherit"}}
	agy: {backend: "antigravity", commands: ["fix-issue"], subAgents: ["tester"]}
}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{"README.md": "mine\n"},
		with:    cfg(`agy: template: "agy"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			if got := read(t, filepath.Join(dir, ".agents/workflows/fix-issue.md")); got != "---\ndescription: Fix a GitHub issue\n---\n\nFix issue #$ARGUMENTS.\n" {
				t.Errorf("workflow:\n%s", got)
			}
			if _, err := os.Stat(filepath.Join(dir, ".agents/skills/fix-issue")); !os.IsNotExist(err) {
				t.Errorf("the command is still a skill: %v", err)
			}
			fm := frontmatterOf(t, filepath.Join(dir, ".agents/agents/tester.md"))
			if fm["name"] != "tester" || fm["description"] != "Writes tests" || fm["tools"] != nil || fm["model"] != nil {
				t.Errorf("custom agent: %v", fm)
			}
			if out := r.Stdout + r.Stderr; !strings.Contains(out, "Antigravity's tool names are not known to actctl; tools Read are not written") {
				t.Errorf("warnings:\n%s", out)
			}
		},
	})
	// resolve prepares the agent it prints, so it runs in a workspace of
	// its own: in runArtifact's, its apply would not leave the second
	// apply a no-op.
	ws := t.TempDir()
	writeConfig(t, ws, cfg(`agy: template: "agy"`))
	if r := actctl(t, ws, "", "resolve", "agy"); r.Code != 0 || !strings.Contains(r.Stdout, "agy_acp_server") {
		t.Errorf("resolve: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestCodexRulesE2E: a Codex agent's rules about shell commands reach
// .codex/rules/actctl.rules as prefix_rule()s instead of a warning; the
// trust note covers the file (Codex reads it in a trusted project only);
// prune removes it (issue #23 item 8).
func TestCodexRulesE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
templates: cx: {backend: "codex", permissions: {
	defaultMode: "acceptEdits"
	allow: ["Bash(go test:*)"]
	deny: ["Bash(rm -rf:*)"]
	ask: ["Bash(git push:*)", "WebFetch(domain:example.com)"]
}}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".codex/config.toml": "# mine\n"},
		with:    cfg(`cx: template: "cx"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			got := read(t, filepath.Join(dir, ".codex/rules/actctl.rules"))
			for _, want := range []string{
				`prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")`,
				`prefix_rule(pattern = ["git", "push"], decision = "prompt")`,
				`prefix_rule(pattern = ["go", "test"], decision = "allow")`,
			} {
				if !strings.Contains(got, want+"\n") {
					t.Errorf("rules lack %s:\n%s", want, got)
				}
			}
			out := r.Stdout + r.Stderr
			if strings.Contains(out, "cannot be expressed for codex;") || !strings.Contains(out, "WebFetch(domain:example.com)") || !strings.Contains(out, "Codex reads "+dir+"/.codex/") {
				t.Errorf("output:\n%s", out)
			}
		},
	})
}

// TestCursorHooksE2E: settings reach Cursor's .cursor/hooks.json (a
// second settings file: keys version and hooks), for the IDE, which had
// no settings file, and for Cursor CLI, whose other settings stay in
// .cursor/cli.json; the user's own hook stays, and prune gives both
// files back byte for byte (issue #23 item 7).
func TestCursorHooksE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
_hooks: {version: 1, hooks: afterFileEdit: [{command: "./fmt.sh"}]}
templates: {
	ide: {backend: "cursor", settings: cursor: _hooks}
	cli: {backend: "cursor-agent", settings: "cursor-agent": _hooks & {editor: vimMode: true}}
}
archetypes: tool: interactionModes: ["open"]
agents: {` + agents + `}
`
	}
	mine := "{\n  \"hooks\": {\n    \"stop\": [{\"command\": \"./mine.sh\"}]\n  }\n}\n"
	runArtifact(t, artifactCase{
		user:    map[string]string{"ide/.cursor/hooks.json": mine, "cli/README.md": "cli\n"},
		with:    cfg(`ide: {template: "ide", workDir: "ide"}, cli: {template: "cli", workDir: "cli"}`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			for _, d := range []string{"ide", "cli"} {
				var v struct {
					Version int
					Hooks   map[string][]struct{ Command string }
				}
				if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, d, ".cursor/hooks.json"))), &v); err != nil {
					t.Fatal(err)
				}
				if v.Version != 1 || len(v.Hooks["afterFileEdit"]) != 1 || v.Hooks["afterFileEdit"][0].Command != "./fmt.sh" {
					t.Errorf("%s hooks.json: %+v", d, v)
				}
				if d == "ide" && (len(v.Hooks["stop"]) != 1 || v.Hooks["stop"][0].Command != "./mine.sh") {
					t.Errorf("the user's hook: %+v", v)
				}
			}
			cli := read(t, filepath.Join(dir, "cli/.cursor/cli.json"))
			if !strings.Contains(cli, `"vimMode": true`) || strings.Contains(cli, "afterFileEdit") {
				t.Errorf("cli.json:\n%s", cli)
			}
			if out := r.Stdout + r.Stderr; strings.Contains(out, "settings") && strings.Contains(out, "not rendered") {
				t.Errorf("warnings:\n%s", out)
			}
		},
	})
}

// TestNewLayoutPathsProtectedE2E: the layout paths this issue added (a
// second settings file, Codex's rules file) are checked like the others:
// one aimed at actctl's own files or the config is refused at its
// position and nothing is written (issue #23 items 7 and 8).
func TestNewLayoutPathsProtectedE2E(t *testing.T) {
	for _, c := range []struct{ backend, want string }{
		{`backends: cursor: files: settingsFiles: [{path: "actant.cue", format: "json", keys: ["hooks"]}]`,
			`backends.cursor.files.settingsFiles[0].path: backend "cursor" may not write actant.cue`},
		{`backends: codex: files: permissions: rules: "actant.owned"`,
			`backends.codex.files.permissions.rules: backend "codex" may not write actant.owned`},
	} {
		dir := t.TempDir()
		src := "package actant\n" + c.backend + `
templates: t: {backend: "codex", permissions: {allow: ["Bash(go:*)"]}}
agents: a: template: "t"
`
		writeFiles(t, dir, map[string]string{"actant.cue": src})
		r := actctl(t, dir, "", "apply")
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) {
			t.Errorf("apply: exit %d, stderr lacks %q:\n%s", r.Code, c.want, r.Stderr)
		}
		if got := listFiles(t, dir); len(got) != 1 {
			t.Errorf("apply wrote files: %v", got)
		}
	}
}

// TestCursorMCPApprovalNoteE2E: after writing .cursor/mcp.json for Cursor
// CLI, apply says that a headless run uses the servers only with
// --approve-mcps, once; a re-apply says nothing (issue #23 item 10).
func TestCursorMCPApprovalNoteE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant
mcpServers: fs: {command: "fs-mcp"}
templates: ca: {backend: "cursor-agent", mcpServers: ["fs"]}
agents: ca: template: "ca"
`)
	r := actctl(t, dir, home, "apply")
	want := "actctl: note: Cursor CLI asks before it uses the MCP servers in " + dir + "/.cursor/mcp.json; a headless run (agent -p) uses them only with --approve-mcps"
	if r.Code != 0 || strings.Count(r.Stderr, want) != 1 {
		t.Errorf("apply: exit %d, want the note once:\n%s", r.Code, r.Stderr)
	}
	if r := actctl(t, dir, home, "apply"); r.Code != 0 || strings.Contains(r.Stderr, "actctl: note:") {
		t.Errorf("re-apply: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestNewFieldsBadInputE2E: the fields this issue added refuse bad
// values at their position, and apply writes nothing: a sub-agent's
// backends key naming no backend (with "did you mean"), a settings file
// taking no keys (issue #23 items 4 and 7).
func TestNewFieldsBadInputE2E(t *testing.T) {
	for _, c := range []struct{ cue, want string }{
		{`templates: t: {backend: "gemini", subAgent: backends: gemni: model: "gemini-2.5-pro"}`,
			`templates.t.subAgent.backends.gemni: unknown backend "gemni" (did you mean "gemini"?)`},
		{`backends: cursor: files: settingsFiles: [{path: ".cursor/hooks.json", format: "json", keys: []}]
templates: t: backend: "cursor"`,
			`backends.cursor.files.settingsFiles[0]: backend "cursor": settings file .cursor/hooks.json takes no keys`},
	} {
		dir := t.TempDir()
		src := "package actant\n" + c.cue + "\nagents: a: template: \"t\"\n"
		writeFiles(t, dir, map[string]string{"actant.cue": src})
		r := actctl(t, dir, "", "apply")
		if r.Code != 1 || !strings.Contains(r.Stderr, c.want) || !strings.Contains(r.Stderr, "actant.cue:") {
			t.Errorf("apply: exit %d, stderr lacks %q:\n%s", r.Code, c.want, r.Stderr)
		}
		if got := listFiles(t, dir); len(got) != 1 {
			t.Errorf("apply wrote files: %v", got)
		}
	}
}
