package materialize

import (
	"encoding/json"
	"errors"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	cueyaml "cuelang.org/go/encoding/yaml"

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
			".mcp.json":                                          ModeKeys,
			".claude/settings.json":                              ModeKeys,
			".gitignore":                                         ModeBlock,
		}, []string{".claude/skills/hub@git-flow/SKILL.md"}, nil},
		{"codex", want{
			"AGENTS.md":                           ModeBlock,
			".agents/skills/code-review/SKILL.md": ModeFile,
			".agents/skills/git-flow/SKILL.md":    ModeFile,
			".codex/config.toml":                  ModeKeys,
		}, nil, []string{"no sub-agents layout"}},
		{"gemini", want{
			"GEMINI.md":                           ModeBlock,
			".gemini/skills/code-review/SKILL.md": ModeFile,
			".gemini/settings.json":               ModeKeys,
		}, nil, []string{"no sub-agents layout"}},
		{"cursor", want{
			"AGENTS.md":                     ModeBlock,
			".cursor/rules/code-review.mdc": ModeFile,
			".cursor/rules/git-flow.mdc":    ModeFile,
			".cursor/mcp.json":              ModeKeys,
		}, nil, []string{"extra file(s)", `cannot be expressed for backend "cursor"`}},
		{"cursor-agent", want{
			"AGENTS.md":                     ModeBlock,
			".cursor/rules/code-review.mdc": ModeFile,
			".cursor/mcp.json":              ModeKeys,
		}, nil, nil},
		{"pi", want{
			"AGENTS.md":                       ModeBlock,
			".pi/skills/code-review/SKILL.md": ModeFile,
			".pi/prompts/role.md":             ModeFile,
			".pi/prompts/style.md":            ModeFile,
		}, nil, []string{"no MCP layout", `cannot be expressed for backend "pi"`}},
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
			b.Files.MCP = &schema.KeysFile{Path: `..\x.json`, Format: "json", Key: "mcpServers"}
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

// TestPresetMapping is SPEC section 4's table.
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
	}
	for _, c := range cases {
		for dialect, want := range map[string]kv{schema.PermClaude: c.claude, schema.PermCodex: c.codex, schema.PermGemini: {"general.defaultApprovalMode": c.gemini}} {
			keys, _, err := permissionKeys(dialect, c.perm)
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
		keys, _, err := permissionKeys(schema.PermCodex, schema.Permissions{DefaultMode: mode})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if strings.Contains(string(k.Value), "danger") {
				t.Errorf("mode %s produced %s", mode, k.Value)
			}
		}
	}
	if _, _, err := permissionKeys(schema.PermClaude, schema.Permissions{Preset: "yolo"}); err == nil {
		t.Error("unknown preset accepted")
	}
	if _, _, err := permissionKeys("cursor", schema.Permissions{Preset: "standard"}); err == nil {
		t.Error("unknown dialect accepted")
	}
	// Rules that codex and gemini cannot express are warned about, not
	// dropped silently; so is a mode Gemini CLI has no setting for.
	for _, d := range []string{schema.PermCodex, schema.PermGemini} {
		_, warns, _ := permissionKeys(d, schema.Permissions{Allow: []string{"Bash"}})
		if len(warns) == 0 {
			t.Errorf("no warning for %s allow rules", d)
		}
	}
	if _, warns, _ := permissionKeys(schema.PermGemini, schema.Permissions{Preset: "permissive"}); len(warns) == 0 {
		t.Error("no warning for permissive on gemini (YOLO cannot be set in settings)")
	}
	if _, warns, _ := permissionKeys(schema.PermGemini, schema.Permissions{Preset: "standard"}); len(warns) != 0 {
		t.Errorf("warnings for standard on gemini: %v", warns)
	}
}

func TestGitignore(t *testing.T) {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	var asked []string
	tracked := map[string]bool{".actant.json": true}
	tg := render(t, cfg, "reviewer", Options{IsTracked: func(rel string) bool {
		asked = append(asked, rel)
		return tracked[rel]
	}})
	e := tg.Find(GitignorePath)
	if e == nil || e.Mode != ModeBlock || e.Style != StyleHash {
		t.Fatalf(".gitignore entry: %+v", e)
	}
	if got := string(e.Content); got != ".actant/\nlogs/\n" {
		t.Errorf(".gitignore block = %q", got)
	}
	if !reflect.DeepEqual(asked, []string{".actant.json", ".actant", "logs"}) {
		t.Errorf("IsTracked asked for %q", asked)
	}
	// Everything tracked: no block at all.
	tg = render(t, cfg, "reviewer", Options{IsTracked: func(string) bool { return true }})
	if tg.Find(GitignorePath) != nil {
		t.Error(".gitignore block rendered although every entry is tracked")
	}
	// Instances never get a .gitignore block.
	tg = render(t, sampleConfig("claude-code", schema.ArchRepo), "reviewer", Options{})
	if tg.Find(GitignorePath) != nil {
		t.Error("instance workspace got a .gitignore block")
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
	cases := []struct {
		file *schema.KeysFile
		srv  schema.MCPServer
		want string
	}{
		{&schema.KeysFile{Path: ".mcp.json", Format: "json"}, remote, `{"headers":{"X-Key":"${KEY}","X-Plain":"v"},"type":"http","url":"https://x.example/mcp"}`},
		{&schema.KeysFile{Path: ".mcp.json", Format: "json"}, sse, `{"type":"sse","url":"https://x.example/sse"}`},
		{&schema.KeysFile{Path: ".gemini/settings.json", Format: "json"}, remote, `{"headers":{"X-Key":"${KEY}","X-Plain":"v"},"httpUrl":"https://x.example/mcp"}`},
		{&schema.KeysFile{Path: ".gemini/settings.json", Format: "json"}, sse, `{"url":"https://x.example/sse"}`},
		{&schema.KeysFile{Path: ".cursor/mcp.json", Format: "json"}, remote, `{"headers":{"X-Key":"${env:KEY}","X-Plain":"v"},"url":"https://x.example/mcp"}`},
		{&schema.KeysFile{Path: "tool/mcp.json", Format: "json"}, remote, `{"headers":{"X-Key":"${KEY}","X-Plain":"v"},"url":"https://x.example/mcp"}`},
		{&schema.KeysFile{Path: ".codex/config.toml", Format: "toml"}, remote, `{"env_http_headers":{"X-Key":"KEY"},"http_headers":{"X-Plain":"v"},"url":"https://x.example/mcp"}`},
		{&schema.KeysFile{Path: ".cursor/mcp.json", Format: "json"}, schema.MCPServer{Command: "srv", Args: []string{"${workspaceFolder}/x", "${HOME}"}},
			`{"args":["${workspaceFolder}/x","${env:HOME}"],"command":"srv"}`},
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
			t.Errorf("%s: got %s\nwant %s", c.file.Path, got, c.want)
		}
	}
	if _, _, err := mcpServerValue(dialectClaude, "s", schema.MCPServer{}); err == nil {
		t.Error("server with neither command nor url accepted")
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

// parseFrontmatter parses the YAML between the --- fences with CUE's YAML
// decoder and returns the top-level scalars as strings.
func parseFrontmatter(t *testing.T, content []byte) map[string]string {
	t.Helper()
	fm, _, ok := splitFrontmatter(string(content))
	if !ok {
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
			out[it.Selector().String()], _ = it.Value().String()
		case cue.BoolKind:
			b, _ := it.Value().Bool()
			out[it.Selector().String()] = map[bool]string{true: "true", false: "false"}[b]
		case cue.NullKind:
			out[it.Selector().String()] = ""
		default:
			out[it.Selector().String()] = "<" + it.Value().Kind().String() + ">"
		}
	}
	return out
}

func TestSkillFrontmatterInContent(t *testing.T) {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	cfg.Skills["code-review"] = schema.Skill{Description: "From config", Content: "---\nname: old\ndescription: >\n  old folded\n  text\nlicense: MIT\nallowed-tools: Read Grep\n---\n\n# Body\n"}
	tg := render(t, cfg, "reviewer", Options{})
	got := string(tg.Find(".claude/skills/code-review/SKILL.md").Content)
	want := "---\nname: code-review\ndescription: From config\nlicense: MIT\nallowed-tools: Read Grep\n---\n\n# Body\n"
	if got != want {
		t.Errorf("SKILL.md:\n%s\nwant:\n%s", got, want)
	}
}

func TestWarnings(t *testing.T) {
	cfg := sampleConfig("gemini", schema.ArchTool)
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
		"c-plain":  {Template: "plain"},                                    // only a block and permissions
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
		`agents.b-second: /ws/.claude/skills/code-review/SKILL.md: file is owned by two agents (agent "a-first" owns it)`,
		`agents.b-second: /ws/.mcp.json: key mcpServers.github is also managed by agent "a-first"`,
		`agents.b-second: /ws/.claude/settings.json: key permissions.defaultMode is also managed by agent "a-first"`,
		`agents.c-plain: /ws/.claude/settings.json: key permissions.defaultMode is also managed by agent "a-first"`,
		`agents.e-broken: agent "e-broken": template "missing" is not declared`,
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("missing diagnostic %q in:\n%s", want, joined)
		}
	}
	for _, e := range errs {
		if strings.HasPrefix(e.Path, "agents.d-other") || strings.HasPrefix(e.Path, "agents.f-same") {
			t.Errorf("unexpected diagnostic for an agent in its own directory: %s", e)
		}
		if strings.Contains(e.Message, "CLAUDE.md") || strings.Contains(e.Message, ".gitignore") {
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
	cfg := sampleConfig("gemini", schema.ArchTool)
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
			b.Files.Permissions = &schema.KeysFile{Path: "p.json", Format: "json", Key: "vim"}
			c.Backends["claude-code"] = b
		},
		"mcp and permissions in one file with two formats": func(c *schema.Config) {
			b := c.Backends["claude-code"]
			b.Files.Permissions = &schema.KeysFile{Path: ".mcp.json", Format: "toml", Key: "codex"}
			c.Backends["claude-code"] = b
		},
		"permissions key inside an MCP key": func(c *schema.Config) {
			b := c.Backends["claude-code"]
			b.Files.MCP = &schema.KeysFile{Path: ".claude/settings.json", Format: "json", Key: "permissions"}
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
