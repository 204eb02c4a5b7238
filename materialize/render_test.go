package materialize

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueyaml "cuelang.org/go/encoding/yaml"
	"github.com/pelletier/go-toml/v2"
	"go.yaml.in/yaml/v3"

	"github.com/actctl/actctl/schema"
)

func render(t *testing.T, cfg *schema.Config, agent string, o Options) *Target {
	t.Helper()
	r, err := cfg.Resolve(agent)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Render(cfg, r, o)
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return tg
}

func renderErr(t *testing.T, cfg *schema.Config, agent string) error {
	t.Helper()
	r, err := cfg.Resolve(agent)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Render(cfg, r, Options{})
	if err == nil {
		t.Fatal("Render succeeded, want an error")
	}
	return err
}

func hasWarning(tg *Target, sub string) bool {
	for _, w := range tg.Warnings {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

// TestBuiltinLayouts checks, per built-in backend, which paths are rendered
// and in which mode.
func TestBuiltinLayouts(t *testing.T) {
	type want map[string]Mode
	cases := []struct {
		backend string
		want    want
		absent  []string
		warn    []string
	}{
		{"claude-code", want{
			"CLAUDE.md":                           ModeBlock,
			".claude/skills/code-review/SKILL.md": ModeFile,
			".claude/skills/code-review/references/checklist.md": ModeFile,
			".claude/skills/git-flow/SKILL.md":                   ModeFile,
			".claude/agents/tester.md":                           ModeFile,
			".claude/commands/fix-issue.md":                      ModeFile,
			".mcp.json":                                          ModeKeys,
			".claude/settings.json":                              ModeKeys,
			".gitignore":                                         ModeBlock,
		}, []string{".claude/skills/hub@git-flow/SKILL.md"}, nil},
		{"codex", want{
			"AGENTS.md":                           ModeBlock,
			".agents/skills/code-review/SKILL.md": ModeFile,
			".agents/skills/git-flow/SKILL.md":    ModeFile,
			".codex/config.toml":                  ModeKeys,
			".codex/agents/tester.toml":           ModeFile,
		}, nil, []string{`backend "codex" has no commands layout`}},
		{"gemini", want{
			"GEMINI.md":                           ModeBlock,
			".gemini/skills/code-review/SKILL.md": ModeFile,
			".gemini/settings.json":               ModeKeys,
			".gemini/commands/fix-issue.toml":     ModeFile,
			".gemini/agents/tester.md":            ModeFile,
		}, nil, nil},
		{"cursor", want{
			"AGENTS.md":                           ModeBlock,
			".cursor/skills/code-review/SKILL.md": ModeFile,
			".cursor/skills/code-review/references/checklist.md": ModeFile,
			".cursor/skills/code-review/scripts/lint.sh":         ModeFile,
			".cursor/skills/git-flow/SKILL.md":                   ModeFile,
			".cursor/mcp.json":                                   ModeKeys,
		}, []string{".cursor/rules/code-review.mdc"}, []string{`cannot be expressed for backend "cursor"`}},
		{"cursor-agent", want{
			"AGENTS.md":                           ModeBlock,
			".cursor/skills/code-review/SKILL.md": ModeFile,
			".cursor/skills/code-review/references/checklist.md": ModeFile,
			".cursor/mcp.json": ModeKeys,
		}, []string{".cursor/rules/code-review.mdc"}, nil},
		{"pi", want{
			"AGENTS.md":                       ModeBlock,
			".pi/skills/code-review/SKILL.md": ModeFile,
			".pi/prompts/fix-issue.md":        ModeFile,
			".pi/prompts/lint.md":             ModeFile,
			".pi/mcp.json":                    ModeKeys,
		}, []string{".pi/prompts/role.md"}, []string{`cannot be expressed for backend "pi"`}},
	}
	for _, c := range cases {
		t.Run(c.backend, func(t *testing.T) {
			tg := render(t, sampleConfig(c.backend, schema.ArchTool), "reviewer", Options{})
			if tg.Dir != testRoot {
				t.Errorf("Dir = %q, want the workspace root", tg.Dir)
			}
			for p, m := range c.want {
				e := tg.Find(p)
				if e == nil {
					t.Errorf("missing %s", p)
					continue
				}
				if e.Mode != m {
					t.Errorf("%s: mode %s, want %s", p, e.Mode, m)
				}
			}
			for _, p := range c.absent {
				if tg.Find(p) != nil {
					t.Errorf("unexpected %s", p)
				}
			}
			for _, w := range c.warn {
				if !hasWarning(tg, w) {
					t.Errorf("no warning containing %q in %q", w, tg.Warnings)
				}
			}
			// Prompts land in the file the backend reads.
			instr := builtinBackends()[c.backend].Files.Instructions[0]
			body := string(tg.Find(instr).Content)
			for _, s := range []string{"## reviewer", "Reviews pull requests", "careful reviewer of acme/api", "friendly tone"} {
				if !strings.Contains(body, s) {
					t.Errorf("%s block lacks %q:\n%s", instr, s, body)
				}
			}
			if strings.Index(body, "careful reviewer") > strings.Index(body, "friendly tone") {
				t.Errorf("prompts are not in template order:\n%s", body)
			}
		})
	}
}

func TestVars(t *testing.T) {
	cases := []struct {
		in, want string
		missing  []string
	}{
		{"no vars", "no vars", nil},
		{"{{a}}", "A", nil},
		{"x {{ a }} y {{b}}", "x A y B", nil},
		{"{{a}}{{a}}", "AA", nil},
		{"{{nope}} and {{nope}} and {{other}}", "{{nope}} and {{nope}} and {{other}}", []string{"nope", "other"}},
		{"{{ .Field }} {{#each x}} {{}}", "{{ .Field }} {{#each x}} {{}}", nil},
		{"unterminated {{a", "unterminated {{a", nil},
		{"{{{a}}}", "{A}", nil},
		{"{{a.b}} {{a-b}}", "dotted dashed", nil},
	}
	vars := map[string]string{"a": "A", "b": "B", "a.b": "dotted", "a-b": "dashed"}
	for _, c := range cases {
		got, missing := fillVars(c.in, vars)
		if got != c.want || !reflect.DeepEqual(missing, c.missing) {
			t.Errorf("fillVars(%q) = %q, %q; want %q, %q", c.in, got, missing, c.want, c.missing)
		}
	}

	// End to end: agent vars override template vars, unknown ones warn.
	cfg := sampleConfig("claude-code", schema.ArchTool)
	cfg.Prompts["style"] = schema.Prompt{Content: "Tone {{tone}}, owner {{owner}}."}
	tg := render(t, cfg, "reviewer", Options{})
	body := string(tg.Find("CLAUDE.md").Content)
	if !strings.Contains(body, "Tone friendly, owner {{owner}}.") {
		t.Errorf("block body:\n%s", body)
	}
	if !hasWarning(tg, `prompt "style": variable {{owner}} is not set`) {
		t.Errorf("no warning naming {{owner}}: %q", tg.Warnings)
	}
	skill := string(tg.Find(".claude/skills/code-review/SKILL.md").Content)
	if !strings.Contains(skill, "Check Go idioms.") {
		t.Errorf("skill vars not filled:\n%s", skill)
	}
	// The sub-agent gets its own vars, overridden by the agent's.
	sub := string(tg.Find(".claude/agents/tester.md").Content)
	if !strings.Contains(sub, "Tone friendly") {
		t.Errorf("sub-agent vars:\n%s", sub)
	}
}

func TestPathEscapeRejected(t *testing.T) {
	for _, p := range []string{"", "/etc/x", "../x", "a/../../x", "a//b", "a/./b", "a/", `a\b`, "C:/x", ".git/hooks/pre-commit", "x/.git/config", ".actant/state.json", "a\nb"} {
		if err := checkRel(p); err == nil {
			t.Errorf("checkRel(%q) = nil, want an error", p)
		}
	}
	for _, p := range []string{"CLAUDE.md", ".claude/skills/x/SKILL.md", ".actant.json", "a/.actant/x", "logs", "prompts/system.md", "a..b/c"} {
		if err := checkRel(p); err != nil {
			t.Errorf("checkRel(%q) = %v, want nil", p, err)
		}
	}

	mutate := []struct {
		name string
		f    func(c *schema.Config)
		want error
	}{
		{"skills dir escapes", func(c *schema.Config) {
			b := c.Backends["claude-code"]
			b.Files.Skills = &schema.DirLayout{Dir: "../x", Format: schema.FormatSkillDir}
			c.Backends["claude-code"] = b
		}, ErrPathSegment},
		{"absolute instructions", func(c *schema.Config) {
			b := c.Backends["claude-code"]
			b.Files.Instructions = []string{"/etc/motd"}
			c.Backends["claude-code"] = b
		}, ErrPathAbsolute},
		{"mcp path with backslash", func(c *schema.Config) {
			b := c.Backends["claude-code"]
			b.Files.MCP = &schema.MCPFile{Path: `..\x.json`, Format: "json", Key: "mcpServers"}
			c.Backends["claude-code"] = b
		}, ErrPathBackslash},
		{"hub skill sibling escapes", func(c *schema.Config) {
			s := c.Skills["hub@git-flow"]
			s.Files = map[string][]byte{"../../x": []byte("pwned")}
			c.Skills["hub@git-flow"] = s
		}, ErrPathSegment},
		{"hub skill name escapes", func(c *schema.Config) {
			c.Skills["hub@.."] = schema.Skill{Description: "x", Content: "x"}
			tp := c.Templates["reviewer"]
			tp.Skills = []string{"hub@.."}
			c.Templates["reviewer"] = tp
		}, ErrPathSegment},
		{"sub-agents into .git", func(c *schema.Config) {
			b := c.Backends["claude-code"]
			b.Files.SubAgents = &schema.DirLayout{Dir: ".git/hooks", Format: schema.FormatClaudeSub}
			c.Backends["claude-code"] = b
		}, ErrPathReserved},
	}
	for _, m := range mutate {
		t.Run(m.name, func(t *testing.T) {
			cfg := sampleConfig("claude-code", schema.ArchTool)
			m.f(cfg)
			err := renderErr(t, cfg, "reviewer")
			if !errors.Is(err, m.want) {
				t.Errorf("error %v, want %v", err, m.want)
			}
			if !strings.Contains(err.Error(), `agent "reviewer"`) {
				t.Errorf("error does not name the agent: %v", err)
			}
		})
	}
}

func TestSkillNameCollision(t *testing.T) {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	cfg.Skills["other@git-flow"] = schema.Skill{Description: "x", Content: "x"}
	tp := cfg.Templates["reviewer"]
	tp.Skills = append(tp.Skills, "other@git-flow")
	cfg.Templates["reviewer"] = tp
	err := renderErr(t, cfg, "reviewer")
	if !strings.Contains(err.Error(), `skill "hub@git-flow" and skill "other@git-flow" both render ".claude/skills/git-flow/SKILL.md"`) {
		t.Errorf("error: %v", err)
	}
}

func TestBlockMarkerInPromptRejected(t *testing.T) {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	cfg.Prompts["style"] = schema.Prompt{Content: "x\n<!-- END actctl agent=reviewer -->\ny"}
	err := renderErr(t, cfg, "reviewer")
	if !strings.Contains(err.Error(), "block marker") {
		t.Errorf("error: %v", err)
	}
}

// TestPresetMapping is the README's presets table.
func TestPresetMapping(t *testing.T) {
	type kv = map[string]string
	cases := []struct {
		perm   schema.Permissions
		claude kv
		codex  kv
		gemini string // general.defaultApprovalMode
	}{
		{schema.Permissions{Preset: "readonly"},
			kv{"permissions.defaultMode": `"plan"`},
			kv{"sandbox_mode": `"read-only"`, "approval_policy": `"on-request"`}, `"plan"`},
		{schema.Permissions{Preset: "restricted"},
			kv{"permissions.defaultMode": `"default"`},
			kv{"sandbox_mode": `"read-only"`, "approval_policy": `"on-request"`}, `"default"`},
		{schema.Permissions{Preset: "standard"},
			kv{"permissions.defaultMode": `"acceptEdits"`},
			kv{"sandbox_mode": `"workspace-write"`, "approval_policy": `"on-request"`, "sandbox_workspace_write.network_access": "false"}, `"auto_edit"`},
		{schema.Permissions{Preset: "permissive"},
			kv{"permissions.defaultMode": `"bypassPermissions"`},
			kv{"sandbox_mode": `"workspace-write"`, "approval_policy": `"never"`, "sandbox_workspace_write.network_access": "true"}, `"auto_edit"`},
		{schema.Permissions{Allow: []string{"Bash(git diff:*)"}, Deny: []string{"Read(./.env)"}, DefaultMode: "plan"},
			kv{"permissions.defaultMode": `"plan"`, "permissions.allow": `["Bash(git diff:*)"]`, "permissions.deny": `["Read(./.env)"]`},
			kv{"sandbox_mode": `"read-only"`, "approval_policy": `"on-request"`}, `"plan"`},
		{schema.Permissions{Ask: []string{"Bash(git push:*)"}},
			kv{"permissions.ask": `["Bash(git push:*)"]`},
			kv{"sandbox_mode": `"read-only"`, "approval_policy": `"on-request"`}, `"default"`},
		// Current Claude Code modes and additionalDirectories.
		{schema.Permissions{DefaultMode: "dontAsk", AdditionalDirectories: []string{"../lib", "/data"}},
			kv{"permissions.defaultMode": `"dontAsk"`, "permissions.additionalDirectories": `["../lib","/data"]`},
			kv{"sandbox_mode": `"read-only"`, "approval_policy": `"never"`}, `"plan"`},
		{schema.Permissions{DefaultMode: "auto"},
			kv{"permissions.defaultMode": `"auto"`},
			kv{"sandbox_mode": `"workspace-write"`, "approval_policy": `"on-request"`, "sandbox_workspace_write.network_access": "false"}, `"auto_edit"`},
	}
	for _, c := range cases {
		gemini := kv{"general.defaultApprovalMode": c.gemini}
		if d := c.perm.AdditionalDirectories; len(d) > 0 {
			gemini["context.includeDirectories"] = string(canonicalJSON(d))
		}
		for dialect, want := range map[string]kv{schema.DialectClaude: c.claude, schema.DialectCodex: c.codex, schema.DialectGemini: gemini} {
			keys, _, err := permissionKeys(testRoot, true, dialect, c.perm)
			if err != nil {
				t.Fatalf("%+v %s: %v", c.perm, dialect, err)
			}
			got := kv{}
			for _, k := range keys {
				got[strings.Join(k.Path, ".")] = string(k.Value)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%+v in %s:\n got %v\nwant %v", c.perm, dialect, got, want)
			}
		}
	}
	// No preset and no mode ever yields danger-full-access.
	for mode := range codexByMode {
		keys, _, err := permissionKeys(testRoot, true, schema.DialectCodex, schema.Permissions{DefaultMode: mode})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if strings.Contains(string(k.Value), "danger") {
				t.Errorf("mode %s produced %s", mode, k.Value)
			}
		}
	}
	if _, _, err := permissionKeys(testRoot, true, schema.DialectClaude, schema.Permissions{Preset: "yolo"}); err == nil {
		t.Error("unknown preset accepted")
	}
	if _, _, err := permissionKeys(testRoot, true, "vim", schema.Permissions{Preset: "standard"}); err == nil {
		t.Error("unknown dialect accepted")
	}
	// Rules that gemini cannot express are warned about, not dropped
	// silently; so is a mode Gemini CLI has no setting for. Codex's go to
	// its rules file (codexRules, TestCodexRules).
	for _, d := range []string{schema.DialectCodex, schema.DialectGemini} {
		_, warns, _ := permissionKeys(testRoot, true, d, schema.Permissions{Allow: []string{"Bash"}})
		if (len(warns) == 0) != (d == schema.DialectCodex) {
			t.Errorf("%s allow rules: warnings %q", d, warns)
		}
		// Codex under a read-only sandbox cannot use writable roots.
		_, warns, _ = permissionKeys(testRoot, true, d, schema.Permissions{Preset: "readonly", AdditionalDirectories: []string{"../lib"}})
		if (len(warns) == 1 && strings.Contains(warns[0], "additionalDirectories")) != (d == schema.DialectCodex) {
			t.Errorf("%s additionalDirectories warnings: %v", d, warns)
		}
	}
	if _, warns, _ := permissionKeys(testRoot, true, schema.DialectGemini, schema.Permissions{Preset: "permissive"}); len(warns) == 0 {
		t.Error("no warning for permissive on gemini (YOLO cannot be set in settings)")
	}
	if _, warns, _ := permissionKeys(testRoot, true, schema.DialectGemini, schema.Permissions{Preset: "standard"}); len(warns) != 0 {
		t.Errorf("warnings for standard on gemini: %v", warns)
	}
}

// TestGitignore: the block lists only paths actctl writes in the project
// workspace, each anchored to it, never a tracked one.
func TestGitignore(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []string
		tracked map[string]bool
		want    string // block content, "" for no block
		asked   []string
		warns   []string // substrings of expected warnings
	}{
		{name: "default", entries: []string{"/.actant/"}, want: "/.actant/\n", asked: []string{".actant"}},
		// The old defaults: nothing writes .actant.json or logs/ in a
		// project, and a bare logs/ would hide every */logs/ of the repository.
		{name: "old defaults", entries: []string{".actant.json", ".actant/", "logs/"}, want: "/.actant/\n", asked: []string{".actant"},
			warns: []string{`gitignore entry ".actant.json" is not a path actctl writes`, `gitignore entry "logs/" is not a path actctl writes`}},
		{name: "own files anchored", entries: []string{".actant", "CLAUDE.md", ".claude/", "/.claude/skills/code-review/scripts"},
			want:  "/.actant/\n/CLAUDE.md\n/.claude/\n/.claude/skills/code-review/scripts/\n",
			asked: []string{".actant", "CLAUDE.md", ".claude", ".claude/skills/code-review/scripts"}},
		{name: "duplicates and blanks", entries: []string{".actant/", " ", "/.actant", ".actant//"}, want: "/.actant/\n", asked: []string{".actant", ".actant", ".actant"}},
		{name: "tracked left out", entries: []string{".actant/", "CLAUDE.md"}, tracked: map[string]bool{".actant": true}, want: "/CLAUDE.md\n", asked: []string{".actant", "CLAUDE.md"}},
		{name: "all tracked", entries: []string{".actant/"}, tracked: map[string]bool{".actant": true}, asked: []string{".actant"}},
		{name: "none", entries: nil},
		{name: "pattern refused", entries: []string{"*.log", "src/logs/"}, warns: []string{`"*.log" is not a path`, `"src/logs/" is not a path`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := sampleConfig("claude-code", schema.ArchTool)
			a := cfg.Archetypes[schema.ArchTool]
			a.Gitignore = tc.entries
			cfg.Archetypes[schema.ArchTool] = a
			var asked []string
			tg := render(t, cfg, "reviewer", Options{IsTracked: func(rel string) bool {
				asked = append(asked, rel)
				return tc.tracked[rel]
			}})
			got := ""
			if e := tg.Find(GitignorePath); e != nil {
				if e.Mode != ModeBlock || e.Style != StyleHash {
					t.Fatalf(".gitignore entry: %+v", e)
				}
				got = string(e.Content)
			}
			if got != tc.want {
				t.Errorf(".gitignore block = %q, want %q", got, tc.want)
			}
			if !reflect.DeepEqual(asked, tc.asked) {
				t.Errorf("IsTracked asked for %q, want %q", asked, tc.asked)
			}
			for _, w := range tc.warns {
				if !hasWarning(tg, w) {
					t.Errorf("no warning containing %q in %q", w, tg.Warnings)
				}
			}
			if len(tc.warns) == 0 && hasWarning(tg, "gitignore") {
				t.Errorf("unexpected gitignore warning: %q", tg.Warnings)
			}
		})
	}
	// Instances never get a .gitignore block.
	tg := render(t, sampleConfig("claude-code", schema.ArchRepo), "reviewer", Options{})
	if tg.Find(GitignorePath) != nil {
		t.Error("instance workspace got a .gitignore block")
	}
}

func TestGitignoreEscape(t *testing.T) {
	for in, want := range map[string]string{
		".actant":     ".actant",
		"a*b/c?d[e]":  `a\*b/c\?d\[e]`,
		`back\slash`:  `back\\slash`,
		"trailing ":   `trailing\ `,
		"in side":     "in side",
		"#hash!/x.md": "#hash!/x.md", // after the leading "/" neither is special
	} {
		if got := gitignoreEscape(in); got != want {
			t.Errorf("gitignoreEscape(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInstanceVsProject(t *testing.T) {
	// Project (tool): materialized in workDir, no Actant metadata.
	cfg := sampleConfig("claude-code", schema.ArchTool)
	cfg.Agents["reviewer"] = schema.Agent{Template: "reviewer", WorkDir: "services/api"}
	tg := render(t, cfg, "reviewer", Options{})
	if tg.Dir != "/ws/services/api" || tg.Conflict != schema.ConflictAppend {
		t.Errorf("project target dir/conflict = %q/%q", tg.Dir, tg.Conflict)
	}
	for _, p := range []string{ActantJSONPath, SystemPromptPath, LogsDir} {
		if tg.Find(p) != nil {
			t.Errorf("project workspace has %s", p)
		}
	}

	// Instance (repo, full): metadata, system prompt, logs.
	cfg = sampleConfig("claude-code", schema.ArchRepo)
	tg = render(t, cfg, "reviewer", Options{})
	if tg.Dir != testHome+"/instances/reviewer" || tg.Conflict != schema.ConflictError {
		t.Errorf("instance target dir/conflict = %q/%q", tg.Dir, tg.Conflict)
	}
	meta := tg.Find(ActantJSONPath)
	if meta == nil || meta.Mode != ModeKeys || meta.Format != schema.FormatJSON {
		t.Fatalf(".actant.json: %+v", meta)
	}
	want := map[string]string{"name": "reviewer", "templateName": "reviewer", "templateVersion": "1.2.0",
		"backendType": "claude-code", "archetype": "repo", "launchMode": "direct", "workspacePolicy": "persistent"}
	got := map[string]string{}
	for _, k := range meta.Keys {
		var s string
		if err := json.Unmarshal(k.Value, &s); err != nil {
			t.Fatal(err)
		}
		got[strings.Join(k.Path, ".")] = s
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf(".actant.json keys = %v, want %v", got, want)
	}
	for _, runtime := range []string{"pid", "status", "processOwnership", "createdAt", "updatedAt"} {
		if meta.Lookup(runtime) != nil {
			t.Errorf(".actant.json renders runtime key %s", runtime)
		}
	}
	if e := tg.Find(SystemPromptPath); e == nil || e.Mode != ModeFile || !strings.Contains(string(e.Content), "careful reviewer of acme/api") {
		t.Errorf("prompts/system.md: %+v", e)
	}
	if e := tg.Find(LogsDir); e == nil || e.Mode != ModeDir {
		t.Errorf("logs: %+v", e)
	}
	// The prompts are also where the backend reads them.
	if !strings.Contains(string(tg.Find("CLAUDE.md").Content), "careful reviewer") {
		t.Error("instance CLAUDE.md lacks the prompts")
	}

	// Minimal instance: metadata only.
	a := cfg.Archetypes[schema.ArchRepo]
	a.Materialize = schema.MaterializeMinimal
	cfg.Archetypes[schema.ArchRepo] = a
	tg = render(t, cfg, "reviewer", Options{})
	if tg.Find(ActantJSONPath) == nil || tg.Find(SystemPromptPath) != nil || tg.Find(LogsDir) != nil {
		t.Error("minimal instance rendered full-materialization files")
	}
}

func TestMCPDialects(t *testing.T) {
	remote := schema.MCPServer{URL: "https://x.example/mcp", Headers: map[string]string{"X-Key": "${KEY}", "X-Plain": "v"}}
	sse := schema.MCPServer{URL: "https://x.example/sse"}
	json := func(p, d string) *schema.MCPFile { return &schema.MCPFile{Path: p, Format: "json", Dialect: d} }
	cases := []struct {
		file *schema.MCPFile
		srv  schema.MCPServer
		want string
	}{
		{json(".mcp.json", "claude"), remote, `{"headers":{"X-Key":"${KEY}","X-Plain":"v"},"type":"http","url":"https://x.example/mcp"}`},
		{json(".mcp.json", "claude"), sse, `{"type":"sse","url":"https://x.example/sse"}`},
		{json(".gemini/settings.json", "gemini"), remote, `{"headers":{"X-Key":"${KEY}","X-Plain":"v"},"type":"http","url":"https://x.example/mcp"}`},
		{json(".gemini/settings.json", "gemini"), sse, `{"type":"sse","url":"https://x.example/sse"}`},
		{json(".agents/mcp_config.json", "antigravity"), remote, `{"headers":{"X-Key":"${KEY}","X-Plain":"v"},"serverUrl":"https://x.example/mcp"}`},
		{json(".agents/mcp_config.json", "antigravity"), schema.MCPServer{Command: "srv", Env: map[string]string{"T": "${T}"}}, `{"command":"srv","env":{"T":"${T}"}}`},
		{json(".cursor/mcp.json", "cursor"), remote, `{"headers":{"X-Key":"${env:KEY}","X-Plain":"v"},"url":"https://x.example/mcp"}`},
		{json("tool/mcp.json", ""), remote, `{"headers":{"X-Key":"${KEY}","X-Plain":"v"},"url":"https://x.example/mcp"}`},
		{&schema.MCPFile{Path: ".codex/config.toml", Format: "toml", Dialect: "codex"}, remote, `{"env_http_headers":{"X-Key":"KEY"},"http_headers":{"X-Plain":"v"},"url":"https://x.example/mcp"}`},
		{json(".cursor/mcp.json", "cursor"), schema.MCPServer{Command: "srv", Args: []string{"${workspaceFolder}/x", "${HOME}"}},
			`{"args":["${workspaceFolder}/x","${env:HOME}"],"command":"srv"}`},
		// The dialect is declared, never guessed from the path: a custom
		// backend's Claude-style file anywhere gets Claude's shape, and a
		// file named .mcp.json without a dialect gets the generic one.
		{json(".foo/mcp.json", "claude"), remote, `{"headers":{"X-Key":"${KEY}","X-Plain":"v"},"type":"http","url":"https://x.example/mcp"}`},
		{json(".mcp.json", ""), sse, `{"url":"https://x.example/sse"}`},
		{json("x/.cursor/mcp.json", "generic"), remote, `{"headers":{"X-Key":"${KEY}","X-Plain":"v"},"url":"https://x.example/mcp"}`},
	}
	for _, c := range cases {
		d, err := dialectFor(c.file)
		if err != nil {
			t.Fatal(err)
		}
		v, _, err := mcpServerValue(d, "s", c.srv)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(canonicalJSON(v)); got != c.want {
			t.Errorf("%s (%s): got %s\nwant %s", c.file.Path, c.file.Dialect, got, c.want)
		}
	}
	if _, _, err := mcpServerValue(dialectClaude, "s", schema.MCPServer{}); err == nil {
		t.Error("server with neither command nor url accepted")
	}
	for _, f := range []*schema.MCPFile{{Path: "a.json", Format: "json", Dialect: "codex"}, {Path: "a.toml", Format: "toml", Dialect: "claude"},
		{Path: "a.toml", Format: "toml"}, {Path: "a.json", Format: "json", Dialect: "vim"}} {
		if _, err := dialectFor(f); err == nil {
			t.Errorf("%+v accepted", *f)
		}
	}
}

// TestFrontmatterIsValidYAML feeds hostile descriptions through every
// frontmatter the renderer writes and parses them back.
func TestFrontmatterIsValidYAML(t *testing.T) {
	descs := []string{
		"plain text", "Use when: reviewing", "#hashtag", "a # comment", "- list item", "yes", "No", "null", "~",
		"123", "1.5", "0x1F", "2024-01-01", `quote " inside`, "it's", "tab\there", "multi\nline", "trailing space ",
		"colon at end:", "{flow}", "[seq]", "*alias", "&anchor", "!tag", "%dir", "@at", "`tick`", "back\\slash",
		"unicode é 中文 ✓", "\u2028sep", "ctrl\x01char", "|literal", ">folded", "?question", "",
	}
	for _, d := range descs {
		cfg := sampleConfig("claude-code", schema.ArchTool)
		cfg.Skills["code-review"] = schema.Skill{Description: d, Content: "body"}
		tp := cfg.Templates["tester"]
		tp.Description = d
		cfg.Templates["tester"] = tp
		tg := render(t, cfg, "reviewer", Options{})
		for _, p := range []string{".claude/skills/code-review/SKILL.md", ".claude/agents/tester.md"} {
			fm := parseFrontmatter(t, tg.Find(p).Content)
			wantDesc := d
			if strings.TrimSpace(d) == "" {
				wantDesc = map[string]string{".claude/skills/code-review/SKILL.md": "body", ".claude/agents/tester.md": "Sub-agent tester"}[p]
			}
			wantDesc = strings.ToValidUTF8(wantDesc, "\uFFFD")
			if fm["description"] != wantDesc {
				t.Errorf("%s: description %q read back as %q", p, d, fm["description"])
			}
		}
		cfg.Backends["claude-code"] = schema.Backend{Files: schema.Files{Skills: &schema.DirLayout{Dir: ".cursor/rules", Format: schema.FormatCursorMDC}}}
		tg = render(t, cfg, "reviewer", Options{})
		fm := parseFrontmatter(t, tg.Find(".cursor/rules/code-review.mdc").Content)
		if d != "" && fm["description"] != strings.ToValidUTF8(d, "\uFFFD") {
			t.Errorf("mdc: description %q read back as %q", d, fm["description"])
		}
		if fm["alwaysApply"] != "false" {
			t.Errorf("mdc alwaysApply = %q", fm["alwaysApply"])
		}
	}
}

// TestCursorRulesLayout: the .mdc rules layout stays available for
// cursor; sibling files have no place there and are warned about, never
// referenced by a file that is not written.
func TestCursorRulesLayout(t *testing.T) {
	cfg := sampleConfig("cursor", schema.ArchTool)
	b := cfg.Backends["cursor"]
	b.Files.Skills = &schema.DirLayout{Dir: ".cursor/rules", Format: schema.FormatCursorMDC}
	cfg.Backends["cursor"] = b
	tg := render(t, cfg, "reviewer", Options{})
	for _, p := range []string{".cursor/rules/code-review.mdc", ".cursor/rules/git-flow.mdc"} {
		if e := tg.Find(p); e == nil || e.Mode != ModeFile {
			t.Errorf("missing %s", p)
		}
	}
	for _, e := range tg.Entries {
		if strings.HasPrefix(e.Path, ".cursor/rules/") && !strings.HasSuffix(e.Path, ".mdc") {
			t.Errorf("unexpected %s in the rules layout", e.Path)
		}
	}
	if !hasWarning(tg, `skill "code-review": format mdc has no place for the skill's 2 extra file(s)`) {
		t.Errorf("warnings: %q", tg.Warnings)
	}
}

// parseFrontmatter parses the YAML between the --- fences with CUE's YAML
// decoder and returns the top-level scalars as strings.
func parseFrontmatter(t *testing.T, content []byte) map[string]string {
	t.Helper()
	rest, ok := strings.CutPrefix(string(content), "---\n")
	fm, _, closed := strings.Cut(rest, "\n---\n")
	if !ok || !closed {
		t.Fatalf("no frontmatter in:\n%s", content)
	}
	f, err := cueyaml.Extract("fm.yaml", []byte(fm))
	if err != nil {
		t.Fatalf("invalid YAML frontmatter: %v\n%s", err, fm)
	}
	v := cuecontext.New().BuildFile(f)
	out := map[string]string{}
	it, err := v.Fields()
	if err != nil {
		t.Fatal(err)
	}
	for it.Next() {
		switch it.Value().Kind() {
		case cue.StringKind:
			out[it.Selector().Unquoted()], _ = it.Value().String()
		case cue.BoolKind:
			b, _ := it.Value().Bool()
			out[it.Selector().Unquoted()] = map[bool]string{true: "true", false: "false"}[b]
		case cue.NullKind:
			out[it.Selector().Unquoted()] = ""
		default:
			out[it.Selector().Unquoted()] = "<" + it.Value().Kind().String() + ">"
		}
	}
	return out
}

// richSkill is a SKILL.md using the Agent Skills optional fields and the
// YAML forms (folded scalar, doubled single quote, nested mapping) that the former
// line-based readers dropped or mangled.
const richSkill = "---\nname: old-name\ndescription: >-\n  Folded description\n  on two lines.\nlicense: 'It''s MIT'\n" +
	"compatibility: Requires git\nallowed-tools: Read Grep\nmetadata:\n  author: acme\n  version: \"1.0\"\n" +
	"disable-model-invocation: true\n---\n\n# Body\n\nUse {{language}}.\n"

// TestSkillFrontmatterKept: every field of the source survives into
// SKILL.md, in order, name set to the skill's directory name; the Cursor
// rule keeps only what Cursor reads.
func TestSkillFrontmatterKept(t *testing.T) {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	var sk schema.Skill
	if err := schema.SplitSkill(&sk, richSkill); err != nil {
		t.Fatal(err)
	}
	cfg.Skills["code-review"] = sk
	got := string(render(t, cfg, "reviewer", Options{}).Find(".claude/skills/code-review/SKILL.md").Content)
	want := "---\nname: code-review\ndescription: >-\n  Folded description on two lines.\nlicense: 'It''s MIT'\n" +
		"compatibility: Requires git\nallowed-tools: Read Grep\nmetadata:\n  author: acme\n  version: \"1.0\"\n" +
		"disable-model-invocation: true\n---\n\n# Body\n\nUse Go.\n"
	if got != want {
		t.Errorf("SKILL.md:\n%s\nwant:\n%s", got, want)
	}
	fm := parseFrontmatter(t, []byte(got))
	for k, v := range map[string]string{"name": "code-review", "description": "Folded description on two lines.", "license": "It's MIT",
		"allowed-tools": "Read Grep", "compatibility": "Requires git", "disable-model-invocation": "true", "metadata": "<struct>"} {
		if fm[k] != v {
			t.Errorf("%s read back as %q, want %q", k, fm[k], v)
		}
	}
	// A description set in the config replaces the source's, in place.
	sk.Description = "From config"
	cfg.Skills["code-review"] = sk
	got = string(render(t, cfg, "reviewer", Options{}).Find(".claude/skills/code-review/SKILL.md").Content)
	if !strings.HasPrefix(got, "---\nname: code-review\ndescription: From config\nlicense: 'It''s MIT'\n") {
		t.Errorf("config description not set in place:\n%s", got)
	}
}

func TestWarnings(t *testing.T) {
	cfg := sampleConfig("gemini", schema.ArchTool)
	noSubs := cfg.Backends["gemini"]
	noSubs.Files.SubAgents = nil
	cfg.Backends["gemini"] = noSubs
	cfg.Skills["Bad_Name"] = schema.Skill{Description: strings.Repeat("x", 1100), Content: "c"}
	tp := cfg.Templates["reviewer"]
	tp.Skills = append(tp.Skills, "Bad_Name")
	cfg.Templates["reviewer"] = tp
	tg := render(t, cfg, "reviewer", Options{})
	for _, w := range []string{`name "Bad_Name" does not follow the Agent Skills rule`, "description is 1100 characters", "sub-agents tester"} {
		if !hasWarning(tg, w) {
			t.Errorf("no warning %q in %q", w, tg.Warnings)
		}
	}

	// A backend without a skills layout gets the skills inlined.
	b := cfg.Backends["gemini"]
	b.Files.Skills = nil
	cfg.Backends["gemini"] = b
	tg = render(t, cfg, "reviewer", Options{})
	body := string(tg.Find("GEMINI.md").Content)
	if !strings.Contains(body, "### Skill: git-flow") || !strings.Contains(body, "trunk-based development on acme/api") {
		t.Errorf("skills not inlined:\n%s", body)
	}
	if !hasWarning(tg, "extra file(s) are not rendered") {
		t.Errorf("no warning for dropped skill files: %q", tg.Warnings)
	}
}

func TestRenderAllOwnership(t *testing.T) {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	cfg.Templates["plain"] = schema.Template{Version: "1.0.0", Backend: "claude-code", Archetype: schema.ArchTool, Prompts: []string{"style"}}
	cfg.Agents = map[string]schema.Agent{
		"a-first":  {Template: "reviewer"},
		"b-second": {Template: "reviewer"},                                 // same skills, MCP and permissions in the same dir
		"c-plain":  {Template: "plain"},                                    // only a block: no permissions given, none written
		"d-other":  {Template: "reviewer", WorkDir: "other"},               // elsewhere: no conflict
		"e-broken": {Template: "missing"},                                  // resolve error
		"f-same":   {Template: "reviewer", WorkDir: "/ws/other/../other2"}, // absolute workDir
	}
	targets, diags := RenderAll(cfg, Options{})
	if len(targets) != 5 {
		t.Fatalf("%d targets, want 5", len(targets))
	}
	for i := 1; i < len(targets); i++ {
		if targets[i-1].Agent >= targets[i].Agent {
			t.Fatal("targets are not sorted by agent name")
		}
	}
	errs := diags.Errors()
	joined := errs.Error()
	for _, want := range []string{
		`agents."b-second": /ws/.claude/agents/tester.md: file is owned by two agents (agent "a-first" owns it)`,
		`agents."b-second": /ws/.mcp.json: key mcpServers.github is also managed by agent "a-first"`,
		`agents."b-second": /ws/.claude/settings.json: key permissions.defaultMode is also managed by agent "a-first"`,
		`agents."e-broken": agent "e-broken": template "missing" is not declared`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing diagnostic %q in:\n%s", want, joined)
		}
	}
	for _, e := range errs {
		if strings.HasPrefix(e.Path, `agents."c-plain"`) || strings.HasPrefix(e.Path, `agents."d-other"`) || strings.HasPrefix(e.Path, `agents."f-same"`) {
			t.Errorf("unexpected diagnostic for an agent in its own directory: %s", e)
		}
		// The same skill, byte for byte, in one directory is written once
		// (shareSkills), not a conflict.
		if strings.Contains(e.Message, "CLAUDE.md") || strings.Contains(e.Message, ".gitignore") || strings.Contains(e.Message, "/skills/") {
			t.Errorf("blocks in a shared file reported as a conflict: %s", e)
		}
	}
}

func TestOwnershipModes(t *testing.T) {
	file := Entry{Path: "x", Mode: ModeFile}
	block := Entry{Path: "x", Mode: ModeBlock, Style: StyleHTML}
	keys := func(format string, paths ...[]string) Entry {
		e := Entry{Path: "x", Mode: ModeKeys, Format: format}
		for _, p := range paths {
			e.Keys = append(e.Keys, Key{Path: p, Value: json.RawMessage(`1`)})
		}
		return e
	}
	dir := Entry{Path: "x", Mode: ModeDir}
	cases := []struct {
		name     string
		a, b     Entry
		conflict bool
	}{
		{"file/file", file, file, true},
		{"file/block", file, block, true},
		{"block/file", block, file, true},
		{"keys/file", keys("json", []string{"k"}), file, true},
		{"block/block", block, block, false},
		{"block/keys", block, keys("json", []string{"k"}), true},
		{"keys/keys disjoint", keys("json", []string{"a"}), keys("json", []string{"b"}), false},
		{"keys/keys same", keys("json", []string{"a", "b"}), keys("json", []string{"a", "b"}), true},
		{"keys/keys parent", keys("json", []string{"a"}), keys("json", []string{"a", "b"}), true},
		{"keys/keys child", keys("json", []string{"a", "b"}), keys("json", []string{"a"}), true},
		{"keys/keys sibling", keys("json", []string{"a", "b"}), keys("json", []string{"a", "c"}), false},
		{"keys json/toml", keys("json", []string{"a"}), keys("toml", []string{"b"}), true},
		{"dir/dir", dir, dir, false},
		{"dir/file", dir, file, true},
	}
	for _, c := range cases {
		ts := []*Target{
			{Agent: "a", Dir: "/w", Entries: []Entry{c.a}},
			{Agent: "b", Dir: "/w", Entries: []Entry{c.b}},
		}
		ds := checkOwnership(&schema.Config{}, ts)
		if got := len(ds) > 0; got != c.conflict {
			t.Errorf("%s: conflict=%v, want %v (%v)", c.name, got, c.conflict, ds)
		}
	}
}

// TestDeterministic renders the same config many times, with map contents
// inserted in different orders, and expects identical bytes.
func TestDeterministic(t *testing.T) {
	base := bigConfig(20, 10)
	_, _ = RenderAll(base, Options{})
	want := marshalTargets(t, base)
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 5; i++ {
		cfg := shuffledCopy(base, rng)
		if got := marshalTargets(t, cfg); got != want {
			t.Fatal("render output differs between runs")
		}
	}
	ts, _ := RenderAll(base, Options{})
	for _, tg := range ts {
		if !sort.SliceIsSorted(tg.Entries, func(i, j int) bool {
			a, b := tg.Entries[i], tg.Entries[j]
			return a.Path < b.Path || (a.Path == b.Path && a.Mode < b.Mode)
		}) {
			t.Fatalf("entries of %s are not sorted", tg.Agent)
		}
	}
}

func marshalTargets(t *testing.T, cfg *schema.Config) string {
	t.Helper()
	ts, diags := RenderAll(cfg, Options{})
	if errs := diags.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	b, err := json.Marshal(ts)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// shuffledCopy rebuilds every map of cfg with keys inserted in random
// order; Go map iteration is randomized anyway, this makes it explicit.
func shuffledCopy(cfg *schema.Config, rng *rand.Rand) *schema.Config {
	c := *cfg
	c.Skills = shuffleMap(cfg.Skills, rng)
	c.Prompts = shuffleMap(cfg.Prompts, rng)
	c.MCPServers = shuffleMap(cfg.MCPServers, rng)
	c.Templates = shuffleMap(cfg.Templates, rng)
	c.Agents = shuffleMap(cfg.Agents, rng)
	return &c
}

func shuffleMap[V any](m map[string]V, rng *rand.Rand) map[string]V {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	out := make(map[string]V, len(m))
	for _, k := range keys {
		out[k] = m[k]
	}
	return out
}

// TestOwnershipNestedDirs: agents whose directories nest meet at the same
// absolute path through different relative paths.
func TestOwnershipNestedDirs(t *testing.T) {
	ts := []*Target{
		{Agent: "outer", Dir: "/ws", Entries: []Entry{{Path: "sub/notes.md", Mode: ModeFile}}},
		{Agent: "inner", Dir: "/ws/sub", Entries: []Entry{{Path: "notes.md", Mode: ModeFile}}},
		{Agent: "sibling", Dir: "/ws-sub", Entries: []Entry{{Path: "notes.md", Mode: ModeFile}}},
		{Agent: "alone", Dir: "/elsewhere", Entries: []Entry{{Path: "notes.md", Mode: ModeFile}}},
	}
	ds := checkOwnership(&schema.Config{}, ts)
	if len(ds) != 1 || ds[0].Path != "agents.inner" || !strings.Contains(ds[0].Message, "/ws/sub/notes.md") {
		t.Fatalf("diagnostics: %v", ds)
	}
	got := map[string]bool{}
	over, _ := overlapping(ts, realDirs(ts, ""))
	for _, tg := range over {
		got[tg.Agent] = true
	}
	if !reflect.DeepEqual(got, map[string]bool{"outer": true, "inner": true}) {
		t.Errorf("overlapping = %v", got)
	}
}

func TestRenderAllWarningsArePositioned(t *testing.T) {
	cfg := sampleConfig("pi", schema.ArchTool)
	_, diags := RenderAll(cfg, Options{})
	if len(diags.Errors()) != 0 {
		t.Fatal(diags.Errors())
	}
	ws := diags.Warnings()
	if len(ws) == 0 {
		t.Fatal("no warnings")
	}
	for _, w := range ws {
		if w.Path != "agents.reviewer" {
			t.Errorf("warning at %q", w.Path)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	cases := map[string]func(c *schema.Config){
		"unknown skills format": func(c *schema.Config) {
			b := c.Backends["claude-code"]
			b.Files.Skills.Format = "zip"
			c.Backends["claude-code"] = b
		},
		"unknown permissions dialect": func(c *schema.Config) {
			b := c.Backends["claude-code"]
			b.Files.Permissions = &schema.PermissionsFile{Path: "p.json", Format: "json", Dialect: "vim"}
			c.Backends["claude-code"] = b
		},
		"mcp and permissions in one file with two formats": func(c *schema.Config) {
			b := c.Backends["claude-code"]
			b.Files.Permissions = &schema.PermissionsFile{Path: ".mcp.json", Format: "toml", Dialect: "codex"}
			c.Backends["claude-code"] = b
		},
		"permissions key inside an MCP key": func(c *schema.Config) {
			b := c.Backends["claude-code"]
			b.Files.MCP = &schema.MCPFile{Path: ".claude/settings.json", Format: "json", Key: "permissions", Dialect: "claude"}
			c.MCPServers["defaultMode"] = schema.MCPServer{Command: "x"}
			tp := c.Templates["reviewer"]
			tp.MCPServers = []string{"defaultMode"}
			c.Templates["reviewer"] = tp
			c.Backends["claude-code"] = b
		},
		"undeclared skill": func(c *schema.Config) {
			tp := c.Templates["reviewer"]
			tp.Skills = []string{"nope"}
			c.Templates["reviewer"] = tp
		},
		"unknown workspace kind": func(c *schema.Config) {
			a := c.Archetypes[schema.ArchTool]
			a.Workspace = "cloud"
			c.Archetypes[schema.ArchTool] = a
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) {
			cfg := sampleConfig("claude-code", schema.ArchTool)
			f(cfg)
			err := renderErr(t, cfg, "reviewer")
			if !strings.HasPrefix(err.Error(), `render agent "reviewer": `) {
				t.Errorf("error lacks context: %v", err)
			}
		})
	}
}

// TestSubAgentToolsAndModel: a template's subAgent tools and model reach
// the Claude Code sub-agent frontmatter; without them both are omitted.
func TestSubAgentToolsAndModel(t *testing.T) {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	tp := cfg.Templates["tester"]
	tp.SubAgent = &schema.SubAgent{Tools: []string{"Read", "Grep", "Bash(go test:*)"}, Model: "haiku"}
	cfg.Templates["tester"] = tp
	got := string(render(t, cfg, "reviewer", Options{}).Find(".claude/agents/tester.md").Content)
	want := "---\nname: tester\ndescription: Writes tests\ntools: Read, Grep, Bash(go test:*)\nmodel: haiku\n---\n\nAnswer in friendly tone.\n"
	if got != want {
		t.Errorf("sub-agent:\n%s\nwant:\n%s", got, want)
	}
	if fm := parseFrontmatter(t, []byte(got)); fm["tools"] != "Read, Grep, Bash(go test:*)" || fm["model"] != "haiku" {
		t.Errorf("read back: %v", fm)
	}
}

// TestCodexMCPEnv: Codex expands no ${VAR}, so a reference is never
// written as literal text: a pass-through becomes env_vars, a rename is
// passed through under the server's name with a warning, a reference
// inside other text is left out with a warning.
func TestCodexMCPEnv(t *testing.T) {
	cases := []struct {
		env   map[string]string
		want  string
		warns []string
	}{
		{map[string]string{"GITHUB_TOKEN": "${GITHUB_TOKEN}", "LOG": "1"},
			`{"command":"srv","env":{"LOG":"1"},"env_vars":["GITHUB_TOKEN"]}`, nil},
		{map[string]string{"B": "${B}", "A": "${A}"}, `{"command":"srv","env_vars":["A","B"]}`, nil},
		{map[string]string{"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
			`{"command":"srv","env_vars":["GITHUB_PERSONAL_ACCESS_TOKEN"]}`, []string{"codex cannot rename an environment variable"}},
		{map[string]string{"AUTH": "Bearer ${TOKEN}", "X": "$HOME"},
			`{"command":"srv","env":{"X":"$HOME"}}`, []string{`env AUTH = "Bearer ${TOKEN}" is not written`}},
	}
	for _, c := range cases {
		v, warns, err := mcpServerValue(dialectCodex, "s", schema.MCPServer{Command: "srv", Env: c.env})
		if err != nil {
			t.Fatal(err)
		}
		got := string(canonicalJSON(v))
		if got != c.want {
			t.Errorf("env %v: got %s\nwant %s", c.env, got, c.want)
		}
		if strings.Contains(got, "${") {
			t.Errorf("env %v: ${VAR} written literally: %s", c.env, got)
		}
		if len(warns) != len(c.warns) {
			t.Errorf("env %v: warnings %q, want %q", c.env, warns, c.warns)
		}
		for i := range c.warns {
			if i < len(warns) && !strings.Contains(warns[i], c.warns[i]) {
				t.Errorf("env %v: warning %q does not contain %q", c.env, warns[i], c.warns[i])
			}
		}
	}
	// Other dialects expand ${VAR} themselves (Cursor in its own syntax).
	for d, want := range map[mcpDialect]string{dialectClaude: "${GITHUB_TOKEN}", dialectGemini: "${GITHUB_TOKEN}", dialectCursor: "${env:GITHUB_TOKEN}"} {
		v, _, _ := mcpServerValue(d, "s", schema.MCPServer{Command: "srv", Env: map[string]string{"T": "${GITHUB_TOKEN}"}})
		if got := v["env"].(map[string]string)["T"]; got != want {
			t.Errorf("%s: env T = %q, want %q", d, got, want)
		}
	}
	_, warns, _ := mcpServerValue(dialectCodex, "s", schema.MCPServer{Command: "srv", Args: []string{"--token", "${T}"}})
	if len(warns) != 1 || !strings.Contains(warns[0], "command or args") {
		t.Errorf("args warnings = %q", warns)
	}
	v, warns, _ := mcpServerValue(dialectCodex, "s", schema.MCPServer{URL: "https://x/mcp", Headers: map[string]string{"X-Org": "org-${ORG}", "X-A": "a"}})
	if got := string(canonicalJSON(v)); got != `{"http_headers":{"X-A":"a"},"url":"https://x/mcp"}` || len(warns) != 1 || !strings.Contains(warns[0], "X-Org") {
		t.Errorf("codex remote: %s %q", got, warns)
	}
}

// TestMCPServerNames: Codex never gets a name it rejects; Gemini names
// with "_" are warned about (the e2e test reads the TOML back).
func TestMCPServerNames(t *testing.T) {
	cfg := sampleConfig("codex", schema.ArchTool)
	cfg.MCPServers["docs.v2"] = schema.MCPServer{Command: "docs", Env: map[string]string{"TOKEN": "${TOKEN}"}}
	tp := cfg.Templates["reviewer"]
	tp.MCPServers = []string{"docs.v2", "hub@my_srv"}
	cfg.MCPServers["hub@my_srv"] = schema.MCPServer{Command: "x"}
	cfg.Templates["reviewer"] = tp
	tg := render(t, cfg, "reviewer", Options{})
	e := tg.Find(".codex/config.toml")
	var names []string
	for _, k := range e.Keys {
		if k.Path[0] == "mcp_servers" {
			names = append(names, k.Path[1])
		}
	}
	if strings.Join(names, ",") != "docs_v2,my_srv" {
		t.Errorf("codex server names = %v", names)
	}
	if !hasWarning(tg, `mcp server "docs.v2": codex accepts server names matching ^[A-Za-z0-9_-]+$ only, so it is written as "docs_v2"`) {
		t.Errorf("warnings = %q", tg.Warnings)
	}
	// Two servers that would land on one codex name are an error, never a
	// silent overwrite.
	cfg.MCPServers["docs_v2"] = schema.MCPServer{Command: "y"}
	tp.MCPServers = []string{"docs.v2", "docs_v2"}
	cfg.Templates["reviewer"] = tp
	if r, err := cfg.Resolve("reviewer"); err != nil {
		t.Fatal(err)
	} else if _, err := Render(cfg, r, Options{}); err == nil || !strings.Contains(err.Error(), "mcp_servers.docs_v2") {
		t.Errorf("collision: err = %v", err)
	}
	g := sampleConfig("gemini", schema.ArchTool)
	g.MCPServers["my_srv"] = schema.MCPServer{Command: "x"}
	gt := g.Templates["reviewer"]
	gt.MCPServers = []string{"my_srv"}
	g.Templates["reviewer"] = gt
	gtg := render(t, g, "reviewer", Options{})
	if !hasWarning(gtg, `mcp server "my_srv": Gemini CLI's policy rules split`) {
		t.Errorf("gemini warnings = %q", gtg.Warnings)
	}
	if e := gtg.Find(".gemini/settings.json"); e.Lookup("mcpServers", "my_srv") == nil {
		t.Errorf("gemini keys = %v", e.Keys)
	}
}

// TestCommandFiles reads every commands format back: the prompt is the
// command's content byte for byte (vars filled, the tool's own
// placeholders untouched), the description is where each tool reads it.
func TestCommandFiles(t *testing.T) {
	wantPrompt := "Fix issue #$ARGUMENTS in acme/api.\nGemini form: {{args}}; positional: $1.\nQuote \"\"\" and a backslash \\ stay.\n"
	const wantDesc = "Fix a GitHub issue: acme/api"
	for _, c := range []struct {
		backend, path string
		read          func(t *testing.T, b []byte) (desc, prompt string)
	}{
		{"claude-code", ".claude/commands/fix-issue.md", readMarkdownCommand},
		{"pi", ".pi/prompts/fix-issue.md", readMarkdownCommand},
		{"cursor", ".cursor/commands/fix-issue.md", readMarkdownCommand},
		{"cursor-agent", ".cursor/commands/fix-issue.md", readMarkdownCommand},
		{"copilot", ".github/prompts/fix-issue.prompt.md", readMarkdownCommand},
		{"opencode", ".opencode/commands/fix-issue.md", readMarkdownCommand},
		{"gemini", ".gemini/commands/fix-issue.toml", func(t *testing.T, b []byte) (string, string) {
			var v struct{ Description, Prompt string }
			if err := toml.Unmarshal(b, &v); err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			return v.Description, v.Prompt
		}},
	} {
		t.Run(c.backend, func(t *testing.T) {
			tg := render(t, sampleConfig(c.backend, schema.ArchTool), "reviewer", Options{})
			e := tg.Find(c.path)
			if e == nil {
				t.Fatalf("missing %s", c.path)
			}
			desc, prompt := c.read(t, e.Content)
			if desc != wantDesc || prompt != wantPrompt {
				t.Errorf("%s read back as description %q, prompt %q", c.path, desc, prompt)
			}
			if hasWarning(tg, "{{args}}") {
				t.Errorf("a tool placeholder was warned about: %q", tg.Warnings)
			}
		})
	}
}

func readMarkdownCommand(t *testing.T, b []byte) (string, string) {
	fm := parseFrontmatter(t, b)
	_, body, _ := strings.Cut(strings.TrimPrefix(string(b), "---\n"), "\n---\n\n")
	return fm["description"], body
}

// TestCommandsAsSkills: a commands layout in the skill format writes a
// user-invocable skill (Antigravity runs a skill as /name).
func TestCommandsAsSkills(t *testing.T) {
	cfg := sampleConfig("codex", schema.ArchTool)
	b := cfg.Backends["codex"]
	b.Files.Commands = &schema.DirLayout{Dir: ".agents/skills", Format: schema.FormatSkillDir}
	cfg.Backends["codex"] = b
	tg := render(t, cfg, "reviewer", Options{})
	fm := parseFrontmatter(t, tg.Find(".agents/skills/fix-issue/SKILL.md").Content)
	if fm["name"] != "fix-issue" || fm["description"] != "Fix a GitHub issue: acme/api" {
		t.Errorf("frontmatter %v", fm)
	}
	if fm := parseFrontmatter(t, tg.Find(".agents/skills/lint/SKILL.md").Content); fm["description"] != "Run the linter." {
		t.Errorf("lint: description falls back to the first line: %v", fm)
	}
}

// TestSettingsKeys: native settings become one managed key per leaf in
// the backend's settings file, beside its permission keys; a leaf the
// permissions also set is an error naming both; null is refused for TOML.
func TestSettingsKeys(t *testing.T) {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	tp := cfg.Templates["reviewer"]
	tp.Settings = map[string]map[string]any{
		"claude-code": {"model": "opus", "env": map[string]any{"A": "1"}, "hooks": map[string]any{"Stop": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": "say done"}}}}}, "empty": map[string]any{}},
		"codex":       {"model": "o3"},
	}
	cfg.Templates["reviewer"] = tp
	tg := render(t, cfg, "reviewer", Options{})
	e := tg.Find(".claude/settings.json")
	for k, want := range map[string]string{
		"model":                      `"opus"`,
		"env\x00A":                   `"1"`,
		"hooks\x00Stop":              `[{"hooks":[{"command":"say done","type":"command"}]}]`,
		"empty":                      `{}`,
		"permissions\x00defaultMode": `"acceptEdits"`,
	} {
		if got := string(e.Lookup(strings.Split(k, "\x00")...)); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
	if len(e.Keys) != 5 {
		t.Errorf("keys: %v (codex settings must not reach claude-code)", e.Keys)
	}

	tp.Settings = map[string]map[string]any{"claude-code": {"permissions": map[string]any{"defaultMode": "plan"}}}
	cfg.Templates["reviewer"] = tp
	r, _ := cfg.Resolve("reviewer")
	if _, err := Render(cfg, r, Options{}); err == nil || !strings.Contains(err.Error(), "permissions and settings both set key permissions.defaultMode") {
		t.Errorf("collision: %v", err)
	}

	cfg = sampleConfig("codex", schema.ArchTool)
	tp = cfg.Templates["reviewer"]
	tp.Settings = map[string]map[string]any{"codex": {"profiles": map[string]any{"x": []any{"a", nil}}}}
	cfg.Templates["reviewer"] = tp
	r, _ = cfg.Resolve("reviewer")
	if _, err := Render(cfg, r, Options{}); err == nil || !strings.Contains(err.Error(), "profiles.x: TOML has no null") {
		t.Errorf("null in TOML: %v", err)
	}
}

// TestSubAgentFiles reads back the sub-agent file of every format.
func TestSubAgentFiles(t *testing.T) {
	sub := func(backend string) *Target {
		cfg := sampleConfig(backend, schema.ArchTool)
		tp := cfg.Templates["tester"]
		tp.Description = `Writes "tests": fast`
		tp.SubAgent = &schema.SubAgent{Tools: []string{"read_file", "grep_search"}, Model: "inherit"}
		cfg.Templates["tester"] = tp
		return render(t, cfg, "reviewer", Options{})
	}
	const desc, prompt = `Writes "tests": fast`, "Answer in friendly tone.\n"

	var cx struct {
		Name         string `toml:"name"`
		Description  string `toml:"description"`
		Model        *string
		Instructions string `toml:"developer_instructions"`
	}
	tg := sub("codex")
	if err := toml.Unmarshal(tg.Find(".codex/agents/tester.toml").Content, &cx); err != nil {
		t.Fatal(err)
	}
	if cx.Name != "tester" || cx.Description != desc || cx.Instructions != prompt || cx.Model != nil {
		t.Errorf("codex agent read back as %+v", cx)
	}
	if !hasWarning(tg, "Codex custom agents take no tool list") {
		t.Errorf("codex warnings: %q", tg.Warnings)
	}

	for _, c := range []struct{ backend, path, tools string }{
		{"gemini", ".gemini/agents/tester.md", "[read_file grep_search]"},
		{"cursor", ".cursor/agents/tester.md", ""},
		{"claude-code", ".claude/agents/tester.md", "read_file, grep_search"},
	} {
		content := sub(c.backend).Find(c.path).Content
		rest := strings.TrimPrefix(string(content), "---\n")
		fm, body, _ := strings.Cut(rest, "\n---\n\n")
		var back map[string]any
		if err := yaml.Unmarshal([]byte(fm), &back); err != nil {
			t.Fatalf("%s: %v\n%s", c.path, err, content)
		}
		tools := ""
		if back["tools"] != nil {
			tools = fmt.Sprint(back["tools"])
		}
		if back["name"] != "tester" || back["description"] != desc || back["model"] != "inherit" || tools != c.tools || body != prompt {
			t.Errorf("%s read back as %v, body %q", c.path, back, body)
		}
		if c.backend == "gemini" && back["kind"] != "local" {
			t.Errorf("gemini kind = %v", back["kind"])
		}
	}
}

// TestCursorPermissions: presets and modes as Cursor CLI allow/deny
// tokens; explicit rules in Cursor's form kept, Edit() as Write(), others
// warned about.
func TestCursorPermissions(t *testing.T) {
	cases := []struct {
		perm        schema.Permissions
		allow, deny string
		warn        string
	}{
		{schema.Permissions{Preset: "readonly"}, `["Read(**)"]`, `["Write(**)"]`, ""},
		{schema.Permissions{Preset: "restricted"}, `["Read(**)"]`, "", ""},
		{schema.Permissions{Preset: "standard"}, `["Read(**)","Write(**)"]`, "", ""},
		{schema.Permissions{Preset: "permissive"}, `["Read(**)","Write(**)","Shell(*)","WebFetch(*)","Mcp(*:*)"]`, "", ""},
		{schema.Permissions{DefaultMode: "dontAsk"}, `["Read(**)"]`, `["Write(**)","Shell(*)"]`, "no Cursor CLI equivalent"},
		{schema.Permissions{DefaultMode: "auto"}, `["Read(**)","Write(**)"]`, "", "no Cursor CLI equivalent"},
		{schema.Permissions{Allow: []string{"Shell(git)", "Edit(src/**)", "Read(**)"}, Deny: []string{"Read(.env*)", "Bash(rm:*)"}},
			`["Read(**)","Shell(git)","Write(src/**)"]`, `["Read(.env*)","Shell(rm)"]`, ""},
		{schema.Permissions{Deny: []string{"Bash(git push:*)"}}, `["Read(**)"]`, "", `permission rule "Bash(git push:*)" has no Cursor CLI form`},
		{schema.Permissions{Ask: []string{"Shell(git)"}}, `["Read(**)"]`, "", "ask rules cannot be expressed for Cursor CLI"},
	}
	for _, c := range cases {
		keys, warns, err := permissionKeys(testRoot, true, schema.DialectCursor, c.perm)
		if err != nil {
			t.Fatal(err)
		}
		e := Entry{Keys: keys}
		if got := string(e.Lookup("permissions", "allow")); got != c.allow {
			t.Errorf("%+v: allow %s, want %s", c.perm, got, c.allow)
		}
		if got := string(e.Lookup("permissions", "deny")); got != c.deny {
			t.Errorf("%+v: deny %s, want %s", c.perm, got, c.deny)
		}
		if c.warn != "" && !strings.Contains(strings.Join(warns, "\n"), c.warn) {
			t.Errorf("%+v: warnings %q lack %q", c.perm, warns, c.warn)
		}
		if c.warn == "" && len(warns) > 0 {
			t.Errorf("%+v: unexpected warnings %q", c.perm, warns)
		}
	}
}

// TestActctlMCPServer: the reserved server "actctl" needs no definition
// and becomes `actctl mcp -C <root> --home <home> --as <agent>` in every
// backend's MCP file, in that file's shape.
func TestActctlMCPServer(t *testing.T) {
	const args = `["mcp","-C","/ws","--home","/home/u/.actant","--as","reviewer"]`
	for _, c := range []struct {
		backend, path, key string
	}{
		{"claude-code", ".mcp.json", "mcpServers"},
		{"codex", ".codex/config.toml", "mcp_servers"},
		{"gemini", ".gemini/settings.json", "mcpServers"},
		{"cursor", ".cursor/mcp.json", "mcpServers"},
		{"antigravity", ".agents/mcp_config.json", "mcpServers"},
	} {
		cfg := sampleConfig(c.backend, schema.ArchTool)
		tp := cfg.Templates["reviewer"]
		tp.MCPServers = []string{"actctl"}
		cfg.Templates["reviewer"] = tp
		e := render(t, cfg, "reviewer", Options{}).Find(c.path)
		if e == nil {
			t.Errorf("%s: no %s", c.backend, c.path)
			continue
		}
		got := string(e.Lookup(c.key, "actctl"))
		if want := `{"args":` + args + `,"command":"actctl"}`; got != want {
			t.Errorf("%s: %s %s.actctl = %s\nwant %s", c.backend, c.path, c.key, got, want)
		}
	}
}

// TestNoPermissionsWritesNone: a template without permissions, or with
// `permissions: {}`, writes no permission key for any built-in backend and
// warns of nothing about permissions: the user's own tool settings stay in
// charge (README, "Permission presets"). The same template with a preset
// does write them (so the check can fail).
func TestNoPermissionsWritesNone(t *testing.T) {
	isPerm := func(k Key) bool {
		switch strings.Join(k.Path, ".") {
		case "sandbox_mode", "approval_policy", "sandbox_workspace_write.network_access", "general.defaultApprovalMode":
			return true
		}
		return k.Path[0] == "permissions" || k.Path[0] == "permission"
	}
	render := func(backend, perms string) *Target {
		dir := t.TempDir()
		src := fmt.Sprintf("package actant\ntemplates: t: {backend: %q, %s}\nagents: a: template: \"t\"\n", backend, perms)
		if err := os.WriteFile(filepath.Join(dir, "actant.cue"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := schema.LoadDir(dir, filepath.Join(t.TempDir(), "home"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := cfg.Resolve("a")
		if err != nil {
			t.Fatal(err)
		}
		tg, err := Render(cfg, r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return tg
	}
	permKeys := func(tg *Target) (n int) {
		for _, e := range tg.Entries {
			for _, k := range e.Keys {
				if isPerm(k) {
					n++
				}
			}
		}
		return n
	}
	for _, backend := range []string{"claude-code", "codex", "gemini", "cursor-agent", "opencode"} {
		if permKeys(render(backend, `permissions: "standard"`)) == 0 {
			t.Errorf("%s: the standard preset writes no permission key: the check below cannot fail", backend)
		}
	}
	for _, perms := range []string{"", "permissions: {}"} {
		for _, backend := range []string{"claude-code", "codex", "gemini", "cursor", "cursor-agent", "antigravity", "pi", "copilot", "opencode"} {
			tg := render(backend, perms)
			if n := permKeys(tg); n > 0 {
				t.Errorf("%s %q: %d permission keys written", backend, perms, n)
			}
			for _, w := range tg.Warnings {
				if strings.Contains(w, "permission") {
					t.Errorf("%s %q: warning %q", backend, perms, w)
				}
			}
		}
	}
}

// TestActctlMCPServerNamesEachAgent: agents of different archetypes that
// list the reserved server in one dialect each get an entry naming
// themselves (`--as <agent>`), whatever order they render in: the entry
// depends on the agent, so the cache shared by RenderAll must not hand
// one agent's entry to another (issue #20 item 22).
func TestActctlMCPServerNamesEachAgent(t *testing.T) {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	cfg.Agents = map[string]schema.Agent{}
	for _, arch := range []string{schema.ArchEmployee, schema.ArchService, schema.ArchRepo, schema.ArchTool} {
		cfg.Templates[arch] = schema.Template{Backend: "claude-code", Archetype: arch, MCPServers: []string{"actctl", "fs"}}
		cfg.Agents["a-"+arch] = schema.Agent{Template: arch}
	}
	targets, diags := RenderAll(cfg, Options{})
	for _, d := range diags {
		if !d.Warning {
			t.Fatalf("RenderAll: %v", d)
		}
	}
	if len(targets) != len(cfg.Agents) {
		t.Fatalf("%d targets, want %d", len(targets), len(cfg.Agents))
	}
	for _, tg := range targets {
		e := tg.Find(".mcp.json")
		if e == nil {
			t.Fatalf("%s: no .mcp.json", tg.Agent)
		}
		want := `{"args":["mcp","-C","/ws","--home","/home/u/.actant","--as",` + strconv.Quote(tg.Agent) + `],"command":"actctl"}`
		if got := string(e.Lookup("mcpServers", "actctl")); got != want {
			t.Errorf("%s: .mcp.json mcpServers.actctl = %s\nwant %s", tg.Agent, got, want)
		}
		if got := string(e.Lookup("mcpServers", "fs")); !strings.Contains(got, `"npx"`) {
			t.Errorf("%s: .mcp.json mcpServers.fs = %s", tg.Agent, got)
		}
	}
}
