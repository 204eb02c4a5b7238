package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
)

// artifactCase is one end-to-end run of a new artifact kind through the
// binary: the user's files before, the config with and without the agent,
// and a check of the bytes written.
type artifactCase struct {
	user    map[string]string // the user's files (also the skill sources)
	exec    []string          // user files made executable
	dirs    []string          // the agents' workDirs, which must exist
	with    string            // config with the agent
	without string            // the same config without it
	check   func(t *testing.T, dir string, r result)
}

// runArtifact applies c.with, runs c.check, re-applies (nothing may be
// written), then applies c.without and checks that only the user's files
// are left, each with its exact bytes.
func runArtifact(t *testing.T, c artifactCase) {
	t.Helper()
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, c.user)
	for _, d := range c.dirs {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range c.exec {
		if err := os.Chmod(filepath.Join(dir, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig(t, dir, c.with)
	_, r := applyJSON(t, dir, home)
	if r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	c.check(t, dir, r)

	before := stamps(t, dir)
	if res := mustApply(t, dir, home); res.Counts.Changed != 0 || res.StateWritten || len(res.Items) != 0 {
		t.Fatalf("second apply must be a no-op: %+v %+v", res.Counts, res.Items)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Errorf("second apply changed files:\n%s", diffStamps(before, after))
	}

	writeConfig(t, dir, c.without)
	mustApply(t, dir, home)
	want := []string{"actant.cue"}
	for p := range c.user {
		want = append(want, p)
	}
	sort.Strings(want)
	if got := filesExceptMeta(t, dir); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("after prune: %v, want %v", got, want)
	}
	for p, b := range c.user {
		if got := read(t, filepath.Join(dir, p)); got != b {
			t.Errorf("%s after prune:\n got %q\nwant %q", p, got, b)
		}
	}
}

func mustMode(t *testing.T, p string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %v, want %v", p, got, want)
	}
}

// TestCursorSkillsE2E: cursor and cursor-agent get Agent Skills in
// .cursor/skills/<name>/SKILL.md with the skill's sibling files (an
// executable script stays executable), not .mdc rules.
func TestCursorSkillsE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
skills: pdf: dir: "skills/pdf"
templates: {
	ide: {backend: "cursor", archetype: "tool", skills: ["pdf"]}
	cli: {backend: "cursor-agent", skills: ["pdf"]}
}
archetypes: tool: interactionModes: ["open"]
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user: map[string]string{
			"skills/pdf/SKILL.md":        richSkillMD,
			"skills/pdf/scripts/fill.py": "#!/usr/bin/env python3\nprint('ok')\n",
			"AGENTS.md":                  "# My project\n",
		},
		exec:    []string{"skills/pdf/scripts/fill.py"},
		dirs:    []string{"sub"},
		with:    cfg("ide: template: \"ide\"\ncli: {template: \"cli\", workDir: \"sub\"}"),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			for _, base := range []string{dir, filepath.Join(dir, "sub")} {
				p := filepath.Join(base, ".cursor/skills/pdf/SKILL.md")
				if got := read(t, p); got != wantSkillMD {
					t.Errorf("%s:\n%s\nwant:\n%s", p, got, wantSkillMD)
				}
				mustMode(t, filepath.Join(base, ".cursor/skills/pdf/scripts/fill.py"), 0o755)
				if _, err := os.Stat(filepath.Join(base, ".cursor/rules")); !os.IsNotExist(err) {
					t.Errorf("%s: .cursor/rules written (%v)", base, err)
				}
			}
		},
	})
}

// commandContent uses every placeholder form the tools define; all must
// reach the files untouched.
const commandContent = "Fix issue #$ARGUMENTS ($1) in {{repo}}.\nGemini: {{args}} and !{git log -1}.\n"

// TestCommandsE2E: a command is written where each tool reads its slash
// commands: Claude Code and Pi Markdown with a description, Cursor plain
// Markdown, Gemini CLI TOML (description, prompt).
func TestCommandsE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
commands: "fix-issue": {description: "Fix an issue of {{repo}}", content: ` + strconv.Quote(commandContent) + `}
_t: {commands: ["fix-issue"], vars: repo: "acme/api"}
templates: {
	claude: _t & {backend: "claude-code"}
	gemini: _t & {backend: "gemini"}
	cursor: _t & {backend: "cursor-agent"}
	pi:     _t & {backend: "pi"}
}
agents: {` + agents + `}
`
	}
	const wantPrompt = "Fix issue #$ARGUMENTS ($1) in acme/api.\nGemini: {{args}} and !{git log -1}.\n"
	const wantDesc = "Fix an issue of acme/api"
	runArtifact(t, artifactCase{
		user:    map[string]string{".claude/commands/mine.md": "My own command\n", ".gemini/commands/mine.toml": "prompt = \"mine\"\n"},
		dirs:    []string{"c", "p"},
		with:    cfg(`claude: {template: "claude"}, gemini: {template: "gemini"}, cursor: {template: "cursor", workDir: "c"}, pi: {template: "pi", workDir: "p"}`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			md := "---\ndescription: " + wantDesc + "\n---\n\n" + wantPrompt
			for p, want := range map[string]string{
				".claude/commands/fix-issue.md":   md,
				"p/.pi/prompts/fix-issue.md":      md,
				"c/.cursor/commands/fix-issue.md": md, // description kept (issue #23 item 9)
			} {
				if got := read(t, filepath.Join(dir, p)); got != want {
					t.Errorf("%s:\n%q\nwant\n%q", p, got, want)
				}
			}
			var g struct{ Description, Prompt string }
			body := read(t, filepath.Join(dir, ".gemini/commands/fix-issue.toml"))
			if err := toml.Unmarshal([]byte(body), &g); err != nil {
				t.Fatalf("gemini command: %v\n%s", err, body)
			}
			if g.Description != wantDesc || g.Prompt != wantPrompt {
				t.Errorf("gemini command read back as %+v:\n%s", g, body)
			}
		},
	})
}

// TestSettingsE2E: native settings are merged as managed keys into the
// user's own .claude/settings.json and .codex/config.toml, beside their
// keys, and pruning gives both files back byte for byte.
func TestSettingsE2E(t *testing.T) {
	const claudeUser = "{\n  \"env\": {\"MINE\": \"1\"},\n  \"theme\": \"dark\"\n}\n"
	const codexUser = "# my codex config\nmodel = \"gpt-5\" # keep\n\n[profiles.mine]\nmodel = \"o3\"\n"
	cfg := func(agents string) string {
		return `package actant
templates: {
	claude: {backend: "claude-code", permissions: "standard", settings: "claude-code": {
		model: "opus"
		env: TRACE: "1"
		hooks: PostToolUse: [{matcher: "Edit|Write", hooks: [{type: "command", command: "gofmt -l ."}]}]
	}}
	codex: {backend: "codex", settings: codex: {
		model_reasoning_effort: "high"
		profiles: fast: {model: "gpt-5-mini", approval_policy: "never"}
	}}
}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".claude/settings.json": claudeUser, ".codex/config.toml": codexUser},
		with:    cfg(`claude: template: "claude", codex: template: "codex"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			var c struct {
				Env   map[string]string `json:"env"`
				Theme string            `json:"theme"`
				Model string            `json:"model"`
				Hooks map[string][]struct {
					Matcher string `json:"matcher"`
					Hooks   []struct{ Type, Command string }
				} `json:"hooks"`
				Permissions struct{ DefaultMode string } `json:"permissions"`
			}
			body := read(t, filepath.Join(dir, ".claude/settings.json"))
			if err := json.Unmarshal([]byte(body), &c); err != nil {
				t.Fatalf("%v\n%s", err, body)
			}
			if c.Theme != "dark" || c.Env["MINE"] != "1" || c.Env["TRACE"] != "1" || c.Model != "opus" || c.Permissions.DefaultMode != "acceptEdits" ||
				len(c.Hooks["PostToolUse"]) != 1 || c.Hooks["PostToolUse"][0].Hooks[0].Command != "gofmt -l ." {
				t.Errorf(".claude/settings.json:\n%s", body)
			}
			var x struct {
				Model    string `toml:"model"`
				Effort   string `toml:"model_reasoning_effort"`
				Profiles map[string]struct {
					Model    string `toml:"model"`
					Approval string `toml:"approval_policy"`
				} `toml:"profiles"`
			}
			body = read(t, filepath.Join(dir, ".codex/config.toml"))
			if err := toml.Unmarshal([]byte(body), &x); err != nil {
				t.Fatalf("%v\n%s", err, body)
			}
			if x.Model != "gpt-5" || x.Effort != "high" || x.Profiles["mine"].Model != "o3" || x.Profiles["fast"].Model != "gpt-5-mini" || x.Profiles["fast"].Approval != "never" {
				t.Errorf(".codex/config.toml:\n%s", body)
			}
			if !strings.HasPrefix(body, "# my codex config\n") {
				t.Errorf("the user's comment moved:\n%s", body)
			}
		},
	})
}

// TestSubAgentsE2E: a template listed in subAgents becomes a Codex custom
// agent (.codex/agents/<n>.toml), a Gemini CLI sub-agent
// (.gemini/agents/<n>.md) and a Cursor sub-agent (.cursor/agents/<n>.md).
func TestSubAgentsE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
prompts: tests: content: "Write table tests for {{pkg}}."
templates: {
	tester: {backend: "codex", description: "Writes tests", prompts: ["tests"], vars: pkg: "./...", subAgent: model: "gpt-5-mini"}
	codex: _lead & {backend: "codex"}
	gemini: _lead & {backend: "gemini"}
	cursor: _lead & {backend: "cursor-agent"}
}
_lead: subAgents: ["tester"]
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".codex/agents/mine.toml": "name = \"mine\"\n"},
		dirs:    []string{"c"},
		with:    cfg(`codex: template: "codex", gemini: template: "gemini", cursor: {template: "cursor", workDir: "c"}`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			const prompt = "Write table tests for ./....\n"
			var cx struct {
				Name, Description, Model string
				Instructions             string `toml:"developer_instructions"`
			}
			body := read(t, filepath.Join(dir, ".codex/agents/tester.toml"))
			if err := toml.Unmarshal([]byte(body), &cx); err != nil {
				t.Fatalf("%v\n%s", err, body)
			}
			if cx.Name != "tester" || cx.Description != "Writes tests" || cx.Model != "gpt-5-mini" || cx.Instructions != prompt {
				t.Errorf("codex agent %+v:\n%s", cx, body)
			}
			for p, extra := range map[string]string{".gemini/agents/tester.md": "kind: local\n", "c/.cursor/agents/tester.md": ""} {
				want := "---\nname: tester\ndescription: Writes tests\n" + extra + "model: gpt-5-mini\n---\n\n" + prompt
				if got := read(t, filepath.Join(dir, p)); got != want {
					t.Errorf("%s:\n%q\nwant\n%q", p, got, want)
				}
			}
		},
	})
}

// TestAntigravityE2E: the antigravity backend writes AGENTS.md, skills
// in .agents/skills, commands as workflows in .agents/workflows, MCP servers in
// .agents/mcp_config.json (remote: serverUrl) and settings into
// .agents/hooks.json; a gemini agent beside it gets its remote server as
// url + type, and validate notes once that Gemini CLI's individual tier
// is retired.
func TestAntigravityE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
skills: pdf: dir: "skills/pdf"
commands: review: {description: "Review the diff", content: "Review $ARGUMENTS"}
mcpServers: {
	fs: {command: "npx", args: ["-y", "server-filesystem", "."], env: TOKEN: "${TOKEN}"}
	docs: {url: "https://docs.example/mcp", headers: "X-Team": "core"}
}
archetypes: tool: interactionModes: ["open"]
templates: {
	agy: {backend: "antigravity", skills: ["pdf"], commands: ["review"], mcpServers: ["fs", "docs"], settings: antigravity: team: Stop: [{command: "echo done"}]}
	gem: {backend: "gemini", mcpServers: ["docs"]}
	gem2: {backend: "gemini"}
}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{"skills/pdf/SKILL.md": richSkillMD, "AGENTS.md": "# Mine\n", ".agents/mcp_config.json": "{\"mcpServers\": {\"mine\": {\"command\": \"x\"}}}\n"},
		dirs:    []string{"g"},
		with:    cfg(`agy: template: "agy", gem: {template: "gem", workDir: "g"}`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			if n := strings.Count(r.Stderr, "Gemini CLI stopped serving individual accounts"); n != 1 {
				t.Errorf("the Gemini CLI note appears %d times:\n%s", n, r.Stderr)
			}
			if got := read(t, filepath.Join(dir, ".agents/skills/pdf/SKILL.md")); got != wantSkillMD {
				t.Errorf("skill:\n%s", got)
			}
			// A command is a workflow, not a skill (issue #23 item 6).
			if got, want := read(t, filepath.Join(dir, ".agents/workflows/review.md")), "---\ndescription: Review the diff\n---\n\nReview $ARGUMENTS\n"; got != want {
				t.Errorf("command as workflow:\n%q\nwant %q", got, want)
			}
			if !strings.Contains(read(t, filepath.Join(dir, "AGENTS.md")), "<!-- BEGIN actctl agent=agy -->") {
				t.Errorf("AGENTS.md has no block")
			}
			var m struct {
				MCPServers map[string]map[string]any `json:"mcpServers"`
			}
			body := read(t, filepath.Join(dir, ".agents/mcp_config.json"))
			if err := json.Unmarshal([]byte(body), &m); err != nil {
				t.Fatalf("%v\n%s", err, body)
			}
			if m.MCPServers["docs"]["serverUrl"] != "https://docs.example/mcp" || m.MCPServers["docs"]["url"] != nil || m.MCPServers["fs"]["command"] != "npx" || m.MCPServers["mine"] == nil {
				t.Errorf("mcp_config.json:\n%s", body)
			}
			var h map[string]map[string][]map[string]string
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".agents/hooks.json"))), &h); err != nil || h["team"]["Stop"][0]["command"] != "echo done" {
				t.Errorf("hooks.json: %v %+v", err, h)
			}
			var g struct {
				MCPServers map[string]map[string]any `json:"mcpServers"`
			}
			body = read(t, filepath.Join(dir, "g/.gemini/settings.json"))
			if err := json.Unmarshal([]byte(body), &g); err != nil {
				t.Fatal(err)
			}
			if d := g.MCPServers["docs"]; d["url"] != "https://docs.example/mcp" || d["type"] != "http" || d["httpUrl"] != nil {
				t.Errorf("gemini remote server:\n%s", body)
			}
		},
	})
}

// TestCursorCLIPermissionsE2E: cursor-agent's permission preset becomes
// Cursor CLI allow/deny tokens in .cursor/cli.json, beside the user's own
// deny list; cursor (the IDE) writes no cli.json.
func TestCursorCLIPermissionsE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
archetypes: tool: interactionModes: ["open"]
templates: {
	cli: {backend: "cursor-agent", permissions: "restricted"}
	cli2: {backend: "cursor-agent", permissions: "permissive"}
	ide: {backend: "cursor", permissions: "permissive"}
}
agents: {` + agents + `}
`
	}
	const user = "{\n  \"permissions\": {\n    \"deny\": [\"Shell(rm)\"]\n  }\n}\n"
	runArtifact(t, artifactCase{
		user:    map[string]string{".cursor/cli.json": user},
		dirs:    []string{"b", "i"},
		with:    cfg(`cli: template: "cli", cli2: {template: "cli2", workDir: "b"}, ide: {template: "ide", workDir: "i"}`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			for p, want := range map[string][2][]string{
				".cursor/cli.json":   {{"Read(**)"}, {"Shell(rm)"}},
				"b/.cursor/cli.json": {{"Read(**)", "Write(**)", "Shell(*)", "WebFetch(*)", "Mcp(*:*)"}, nil},
			} {
				var c struct {
					Permissions struct{ Allow, Deny []string }
				}
				body := read(t, filepath.Join(dir, p))
				if err := json.Unmarshal([]byte(body), &c); err != nil {
					t.Fatalf("%s: %v\n%s", p, err, body)
				}
				if !reflect.DeepEqual(c.Permissions.Allow, want[0]) || !reflect.DeepEqual(c.Permissions.Deny, want[1]) {
					t.Errorf("%s:\n%s", p, body)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, "i/.cursor/cli.json")); !os.IsNotExist(err) {
				t.Errorf("cursor (IDE) wrote cli.json: %v", err)
			}
		},
	})
}

// TestTrustNotesE2E: after writing a project file that codex, gemini or
// pi reads only in a trusted project, apply says once what to do, naming
// the directory; a re-apply that writes nothing says nothing; nothing
// outside the workspace is touched.
func TestTrustNotesE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, dir, `package actant
mcpServers: fs: {command: "npx", args: ["server-filesystem"]}
commands: hi: content: "Say hi"
templates: {
	cx: {backend: "codex", mcpServers: ["fs"]}
	gm: {backend: "gemini", mcpServers: ["fs"]}
	pi: {backend: "pi", commands: ["hi"]}
	cl: {backend: "claude-code", mcpServers: ["fs"]}
}
agents: {cx: template: "cx", cx2: {template: "cx", workDir: "sub"}, gm: template: "gm", pi: template: "pi", cl: template: "cl"}
`)
	fakeHome := t.TempDir()
	r := actctlEnv(t, dir, home, []string{"HOME=" + fakeHome}, "apply")
	if r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for _, want := range []string{
		"actctl: note: Codex reads " + dir + "/.codex/ (config.toml, agents, rules) only in a trusted project",
		"[projects.\"" + filepath.Join(dir, "sub") + "\"]\n  trust_level = \"trusted\"",
		"actctl: note: With folder trust on (security.folderTrust.enabled), Gemini CLI ignores " + dir + "/.gemini/",
		// Trust gates of issue #23 item 10: Claude Code's approval of
		// project MCP servers, Codex's review of project hooks, Gemini's
		// acknowledgement of project sub-agents.
		"Claude Code asks once to approve each MCP server in " + dir + "/.mcp.json when you start claude there",
		"[projects.\"" + dir + "\"]\n  trust_level = \"trusted\"\nHooks in the project's config.toml also run only once you have reviewed and trusted them (/hooks in codex)",
		"It also loads the project's sub-agents in .gemini/agents only once you acknowledge them",
		"actctl: note: Pi reads " + dir + "/.pi/ (skills, prompt templates, settings, mcp.json) only in a trusted project",
		// pi-acp starts pi --mode rpc, which never asks (issue #23 item 5).
		"Over ACP (actctl run, chat, up, proxy; Zed) pi-acp starts pi --mode rpc, which never asks and ignores .pi/ without a saved decision: trust " + dir + " in pi once",
	} {
		if strings.Count(r.Stderr, want) != 1 {
			t.Errorf("stderr has %d times %q:\n%s", strings.Count(r.Stderr, want), want, r.Stderr)
		}
	}
	if n := strings.Count(r.Stderr, "actctl: note:"); n != 5 {
		t.Errorf("%d notes, want 5 (one per gated workspace; claude-code's .mcp.json since issue #23 item 10):\n%s", n, r.Stderr)
	}
	if files := listFiles(t, fakeHome); len(files) != 0 {
		t.Errorf("files written in the home directory: %v", files)
	}
	if r := actctlEnv(t, dir, home, []string{"HOME=" + fakeHome}, "apply"); r.Code != 0 || strings.Contains(r.Stderr, "actctl: note:") {
		t.Errorf("re-apply: exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
}
