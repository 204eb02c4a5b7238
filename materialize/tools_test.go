package materialize

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/actctl/actctl/schema"
)

// TestVSCodeAndOpenCodeMCP renders servers in the two dialects of GitHub
// Copilot (VS Code's .vscode/mcp.json) and OpenCode (opencode.json):
// their entry shapes, and every ${NAME} (command, args, env, url,
// headers) in the tool's own form, VS Code's predefined variables kept.
func TestVSCodeAndOpenCodeMCP(t *testing.T) {
	stdio := schema.MCPServer{Command: "${TOOLS}/srv", Args: []string{"${workspaceFolder}/x", "${HOME}", "${input:key}"},
		Env: map[string]string{"T": "${T}", "DSN": "pg://u:${PASS}@h", "L": "1"}}
	remote := schema.MCPServer{URL: "https://${HOST}/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}", "X-Plain": "v"}}
	sse := schema.MCPServer{URL: "https://x.example/sse"}
	cases := []struct {
		d    mcpDialect
		srv  schema.MCPServer
		want string
	}{
		{dialectVSCode, stdio, `{"args":["${workspaceFolder}/x","${env:HOME}","${input:key}"],"command":"${env:TOOLS}/srv","env":{"DSN":"pg://u:${env:PASS}@h","L":"1","T":"${env:T}"},"type":"stdio"}`},
		{dialectVSCode, remote, `{"headers":{"Authorization":"Bearer ${env:TOKEN}","X-Plain":"v"},"type":"http","url":"https://${env:HOST}/mcp"}`},
		{dialectVSCode, sse, `{"type":"sse","url":"https://x.example/sse"}`},
		{dialectVSCode, schema.MCPServer{Command: "srv"}, `{"command":"srv","type":"stdio"}`},
		{dialectOpenCode, stdio, `{"command":["{env:TOOLS}/srv","{env:workspaceFolder}/x","{env:HOME}","${input:key}"],"enabled":true,"environment":{"DSN":"pg://u:{env:PASS}@h","L":"1","T":"{env:T}"},"type":"local"}`},
		{dialectOpenCode, remote, `{"enabled":true,"headers":{"Authorization":"Bearer {env:TOKEN}","X-Plain":"v"},"type":"remote","url":"https://{env:HOST}/mcp"}`},
		{dialectOpenCode, schema.MCPServer{Command: "srv"}, `{"command":["srv"],"enabled":true,"type":"local"}`},
	}
	for _, c := range cases {
		v, _, err := mcpServerValue(c.d, "s", c.srv)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(canonicalJSON(v)); got != c.want {
			t.Errorf("%s: got  %s\nwant %s", c.d, got, c.want)
		}
	}
	for _, f := range []*schema.MCPFile{{Path: "a.toml", Format: "toml", Dialect: "vscode"}, {Path: "a.toml", Format: "toml", Dialect: "opencode"}} {
		if _, err := dialectFor(f); err == nil || !strings.Contains(err.Error(), "is written as json") {
			t.Errorf("%+v: err = %v", *f, err)
		}
	}
}

// TestOpenCodePermissions maps every preset onto OpenCode's permission
// actions; rules and additional directories are warned about.
func TestOpenCodePermissions(t *testing.T) {
	for preset, want := range map[string]string{
		schema.PresetReadonly:   "deny ask ask",
		schema.PresetRestricted: "ask ask ask",
		schema.PresetStandard:   "allow ask ask",
		schema.PresetPermissive: "allow allow allow",
	} {
		keys, warns, err := permissionKeys(testRoot, true, schema.DialectOpenCode, schema.Permissions{Preset: preset})
		if err != nil || len(warns) > 0 {
			t.Fatalf("%s: %v %v", preset, err, warns)
		}
		var got []string
		for _, k := range keys {
			got = append(got, strings.Trim(string(k.Value), `"`))
		}
		if strings.Join(got, " ") != want || dotted(keys[0].Path) != "permission.edit" || dotted(keys[1].Path) != "permission.bash" || dotted(keys[2].Path) != "permission.webfetch" {
			t.Errorf("%s: %v = %v, want %s", preset, keys, got, want)
		}
	}
	_, warns, err := permissionKeys(testRoot, true, schema.DialectOpenCode, schema.Permissions{AdditionalDirectories: []string{"../x"}, DefaultMode: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(warns, "\n"); !strings.Contains(w, `"../x" is not written to OpenCode's permission.external_directory`) || !strings.Contains(w, "approximated") {
		t.Errorf("warnings = %q", warns)
	}
}

// TestOpenCodeRules: Claude Code rules become OpenCode pattern maps over
// the mode's action (a deny beating an ask beating an allow for one
// pattern), additional directories external_directory patterns (a
// relative one only in an instance), and what OpenCode cannot say, or
// where its last-match order would let a weaker rule win, is warned about
// (issue #34 item 6).
func TestOpenCodeRules(t *testing.T) {
	cases := []struct {
		name      string
		committed bool
		p         schema.Permissions
		want      string // dotted key = value, one per line
		warn      string // "" for none
	}{
		{"bash rules over the preset", true, schema.Permissions{Preset: schema.PresetStandard, Allow: []string{"Bash(go test:*)"}, Deny: []string{"Bash(git push:*)", "Bash(go test:*)"}},
			`permission.edit = "allow"
permission.bash = {"*":"ask","git push":"deny","git push *":"deny","go test":"deny","go test *":"deny"}
permission.webfetch = "ask"`, ""},
		{"edit and read patterns", true, schema.Permissions{Preset: schema.PresetReadonly, Allow: []string{"Edit(docs/**)", "Write(notes.md)"}, Deny: []string{"Read(.env)"}},
			`permission.edit = {"*":"deny","docs/**":"allow","notes.md":"allow"}
permission.bash = "ask"
permission.webfetch = "ask"
permission.read = {"*":"allow",".env":"deny"}`, ""},
		{"directories in an instance", false, schema.Permissions{Preset: schema.PresetPermissive, AdditionalDirectories: []string{"/srv/data/", "~/notes", "../shared"}},
			`permission.edit = "allow"
permission.bash = "allow"
permission.webfetch = "allow"
permission.external_directory = {"/srv/data/**":"allow","/ws/shared/**":"allow","~/notes/**":"allow"}`, ""},
		{"untranslatable rules", true, schema.Permissions{Allow: []string{"WebFetch(domain:go.dev)", "mcp__github__get_issue", "Bash(ls"}},
			`permission.edit = "ask"
permission.bash = "ask"
permission.webfetch = "ask"`, `"WebFetch(domain:go.dev)" has no OpenCode form`},
		{"order that lets an allow win", true, schema.Permissions{Allow: []string{"Bash(git*)"}, Deny: []string{"Bash(git push:*)"}},
			`permission.edit = "ask"
permission.bash = {"*":"ask","git push":"deny","git push *":"deny","git*":"allow"}
permission.webfetch = "ask"`, `opencode permission.bash: "git push *" (deny) is written before "git*" (allow)`},
	}
	for _, c := range cases {
		keys, warns, err := permissionKeys(testRoot+"/inst", c.committed, schema.DialectOpenCode, c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got []string
		for _, k := range keys {
			got = append(got, dotted(k.Path)+" = "+string(k.Value))
		}
		want := strings.ReplaceAll(c.want, "/ws/shared", filepath.Join(testRoot, "shared"))
		if g := strings.Join(got, "\n"); g != want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, g, want)
		}
		w := strings.Join(warns, "\n")
		if (c.warn == "") != (w == "") || !strings.Contains(w, c.warn) {
			t.Errorf("%s: warnings %q, want one containing %q", c.name, warns, c.warn)
		}
	}
}

// TestAmpPermissions: Claude Code's Bash and mcp__ rules become Amp's
// ordered amp.permissions (reject, then ask, then allow: the first match
// wins), permissive a last rule allowing every tool; what Amp's settings
// cannot say is warned about (issue #34 item 6).
func TestAmpPermissions(t *testing.T) {
	cases := []struct {
		name string
		p    schema.Permissions
		want string // the amp.permissions value, "" for no key
		warn string
	}{
		{"rules in precedence order", schema.Permissions{Allow: []string{"Bash(go test:*)", "mcp__github__*"}, Deny: []string{"Bash(git push:*)"}, Ask: []string{"Bash(make deploy)"}},
			`[{"tool":"Bash","matches":{"cmd":"git push"},"action":"reject"},{"tool":"Bash","matches":{"cmd":"git push *"},"action":"reject"},{"tool":"Bash","matches":{"cmd":"make deploy"},"action":"ask"},{"tool":"Bash","matches":{"cmd":"go test"},"action":"allow"},{"tool":"Bash","matches":{"cmd":"go test *"},"action":"allow"},{"tool":"mcp__github__*","action":"allow"}]`, ""},
		{"permissive", schema.Permissions{Preset: schema.PresetPermissive, Deny: []string{"Bash(rm:*)"}},
			`[{"tool":"Bash","matches":{"cmd":"rm"},"action":"reject"},{"tool":"Bash","matches":{"cmd":"rm *"},"action":"reject"},{"tool":"*","action":"allow"}]`, ""},
		{"restricted", schema.Permissions{Preset: schema.PresetRestricted}, "", ""},
		{"readonly", schema.Permissions{Preset: schema.PresetReadonly}, "", "permission mode plan has no Amp setting"},
		{"other tools", schema.Permissions{Allow: []string{"Read(src/**)"}, AdditionalDirectories: []string{"/x"}}, "", `"Read(src/**)" has no Amp form`},
	}
	for _, c := range cases {
		keys, warns, err := permissionKeys(testRoot, true, schema.DialectAmp, c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := ""
		if len(keys) == 1 && dotted(keys[0].Path) == "amp.permissions" {
			got = string(keys[0].Value)
		} else if len(keys) > 0 {
			t.Errorf("%s: keys %v", c.name, keys)
		}
		if got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.name, got, c.want)
		}
		w := strings.Join(warns, "\n")
		if (c.warn == "") != (w == "") || !strings.Contains(w, c.warn) {
			t.Errorf("%s: warnings %q, want one containing %q", c.name, warns, c.warn)
		}
	}
}

// TestVSCodePermissions: Claude Code's Bash rules become VS Code's
// chat.tools.terminal.autoApprove (allow true; ask and deny false, deny
// warned as VS Code cannot refuse); a mode and other rules are warned
// about (issue #34 item 6).
func TestVSCodePermissions(t *testing.T) {
	cases := []struct {
		name string
		p    schema.Permissions
		want string
		warn string
	}{
		{"rules", schema.Permissions{Allow: []string{"Bash(go test:*)", "Bash(make lint)", "Bash(git push:*)"}, Ask: []string{"Bash(npm publish:*)"}},
			`{"/^make lint$/":true,"git push":true,"go test":true,"npm publish":false}`, ""},
		{"deny beats allow", schema.Permissions{Allow: []string{"Bash(rm:*)"}, Deny: []string{"Bash(rm:*)"}},
			`{"rm":false}`, `VS Code cannot refuse a terminal command`},
		{"preset", schema.Permissions{Preset: schema.PresetReadonly}, "", "permission mode plan has no VS Code workspace setting"},
		{"other tools", schema.Permissions{Allow: []string{"Edit(src/**)"}}, "", `"Edit(src/**)" has no VS Code form`},
	}
	for _, c := range cases {
		keys, warns, err := permissionKeys(testRoot, true, schema.DialectVSCode, c.p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := ""
		if len(keys) == 1 && dotted(keys[0].Path) == "chat.tools.terminal.autoApprove" {
			got = string(keys[0].Value)
		} else if len(keys) > 0 {
			t.Errorf("%s: keys %v", c.name, keys)
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
		w := strings.Join(warns, "\n")
		if (c.warn == "") != (w == "") || !strings.Contains(w, c.warn) {
			t.Errorf("%s: warnings %q, want one containing %q", c.name, warns, c.warn)
		}
	}
}

// TestLayoutExt: a layout's ext names the files of the one-file formats
// (Copilot's .prompt.md), the formats' own endings otherwise; a skill
// directory takes none, and saying so is an error naming it.
func TestLayoutExt(t *testing.T) {
	for _, c := range []struct {
		l    schema.DirLayout
		want string
	}{
		{schema.DirLayout{Dir: "p", Format: schema.FormatMarkdown, Ext: ".prompt.md"}, "p/fix.prompt.md"},
		{schema.DirLayout{Dir: "p", Format: schema.FormatPlain, Ext: ".txt"}, "p/fix.txt"},
		{schema.DirLayout{Dir: "p", Format: schema.FormatGeminiCommand}, "p/fix.toml"},
		{schema.DirLayout{Dir: "p", Format: schema.FormatMarkdown}, "p/fix.md"},
	} {
		p, _, err := commandFile(&c.l, "fix", "d", "body")
		if err != nil || p != c.want {
			t.Errorf("%+v: %s %v, want %s", c.l, p, err, c.want)
		}
	}
	if _, _, err := commandFile(&schema.DirLayout{Dir: "p", Format: schema.FormatSkillDir, Ext: ".md"}, "fix", "d", "b"); err == nil || !strings.Contains(err.Error(), `ext ".md" does not apply`) {
		t.Errorf("commands skill with ext: %v", err)
	}
	cfg := sampleConfig("copilot", schema.ArchTool)
	b := cfg.Backends["copilot"]
	b.Files.Skills = &schema.DirLayout{Dir: ".github/skills", Format: schema.FormatSkillDir, Ext: ".md"}
	cfg.Backends["copilot"] = b
	if err := renderErr(t, cfg, "reviewer"); err == nil || !strings.Contains(err.Error(), `ext ".md" does not apply`) {
		t.Errorf("skills with ext: %v", err)
	}
}

// TestCopilotAndOpenCodeSubAgents: a Copilot custom agent keeps the tool
// list and model as given; an OpenCode agent is a sub-agent whose tools
// cannot be a list (warned) and whose inherit model is left out.
func TestCopilotAndOpenCodeSubAgents(t *testing.T) {
	s := subAgent{name: "tester", desc: "Writes tests", prompt: "Test.\n", sa: &schema.SubAgent{Tools: []string{"read", "search"}, Model: "inherit"}}
	p, b, warns, err := subAgentFile(&schema.DirLayout{Dir: ".github/agents", Format: schema.FormatCopilotSub}, s)
	if err != nil || p != ".github/agents/tester.agent.md" || len(warns) > 0 ||
		string(b) != "---\nname: tester\ndescription: Writes tests\ntools: [\"read\", \"search\"]\nmodel: inherit\n---\n\nTest.\n" {
		t.Errorf("copilot: %s %v %v\n%s", p, warns, err, b)
	}
	p, b, warns, err = subAgentFile(&schema.DirLayout{Dir: ".opencode/agents", Format: schema.FormatOpenCodeSub}, s)
	if err != nil || p != ".opencode/agents/tester.md" || len(warns) != 1 || !strings.Contains(warns[0], "OpenCode agents take tool switches") ||
		string(b) != "---\ndescription: Writes tests\nmode: subagent\n---\n\nTest.\n" {
		t.Errorf("opencode: %s %v %v\n%s", p, warns, err, b)
	}
}

// TestShadowedInstructionsImported: Claude Code reads AGENTS.md only
// without a CLAUDE.md, so a CLAUDE.md actctl writes beside a user's
// AGENTS.md imports it, inside the agent's block; not when the CLAUDE.md
// holds the user's own text (the user chose it), nor when AGENTS.md holds
// only actctl's blocks. The rule is the backend's data: another
// instruction file, another shadowed file, another import form.
func TestShadowedInstructionsImported(t *testing.T) {
	block := func(cfg *schema.Config, user ...string) string {
		t.Helper()
		has := map[string]bool{}
		for _, u := range user {
			has[testRoot+"/"+u] = true
		}
		r, err := cfg.Resolve("reviewer")
		if err != nil {
			t.Fatal(err)
		}
		tg, err := Render(cfg, r, Options{UserText: func(p string) bool { return has[p] }})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range tg.Entries {
			if e.Mode == ModeBlock && e.Path != GitignorePath {
				return e.Path + ":" + string(e.Content)
			}
		}
		return ""
	}
	cfg := sampleConfig("claude-code", schema.ArchTool)
	if got := block(cfg, "AGENTS.md"); !strings.HasPrefix(got, "CLAUDE.md:@AGENTS.md\n\n## reviewer\n") {
		t.Errorf("user's AGENTS.md: %q", got)
	}
	for _, user := range [][]string{nil, {"CLAUDE.md", "AGENTS.md"}, {"CLAUDE.md"}} {
		if got := block(cfg, user...); !strings.HasPrefix(got, "CLAUDE.md:## reviewer\n") {
			t.Errorf("user text in %v: %q", user, got)
		}
	}
	b := cfg.Backends["claude-code"]
	b.Files.Instructions = []string{".claude/CLAUDE.md"}
	b.Files.Shadows = &schema.Shadows{Files: []string{"AGENTS.md", "docs/RULES.md"}, Import: "See @{path}."}
	cfg.Backends["claude-code"] = b
	if got := block(cfg, "AGENTS.md", "docs/RULES.md"); !strings.HasPrefix(got, ".claude/CLAUDE.md:See @../AGENTS.md.\n\nSee @../docs/RULES.md.\n\n## reviewer\n") {
		t.Errorf("custom layout: %q", got)
	}
	// Backends without shadows never ask.
	if got := block(sampleConfig("codex", schema.ArchTool), "AGENTS.md"); !strings.HasPrefix(got, "AGENTS.md:## reviewer\n") {
		t.Errorf("codex: %q", got)
	}
}

// TestAdditionalDirectoriesCodexGemini: additionalDirectories reach
// Codex as sandbox_workspace_write.writable_roots when its sandbox is
// workspace-write: absolute and ~/ ones as given; a relative one only in
// an instance workspace (resolved from it), never in a project one, whose
// committed config.toml must not hold this machine's path (warned, issue
// #34 item 4); Gemini CLI gets context.includeDirectories, as given; a
// read-only Codex sandbox gets none, with a warning naming why (issue #23
// item 3).
func TestAdditionalDirectoriesCodexGemini(t *testing.T) {
	dirs := []string{"../shared", "/data", "~/notes", "sub/dir"}
	roots := func(committed bool) (string, []string) {
		keys, warns, err := permissionKeys("/ws/app", committed, schema.DialectCodex, schema.Permissions{Preset: schema.PresetStandard, AdditionalDirectories: dirs})
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if dotted(k.Path) == "sandbox_workspace_write.writable_roots" {
				return string(k.Value), warns
			}
		}
		return "", warns
	}
	if w, warns := roots(false); w != `["/ws/shared","/data","~/notes","/ws/app/sub/dir"]` || len(warns) > 0 {
		t.Errorf("instance: codex writable_roots = %s %q", w, warns)
	}
	w, warns := roots(true)
	if w != `["/data","~/notes"]` || len(warns) != 2 || !strings.Contains(warns[0], `"../shared" is not written to codex's sandbox_workspace_write.writable_roots`) || !strings.Contains(warns[1], `"sub/dir"`) {
		t.Errorf("project: codex writable_roots = %s %q", w, warns)
	}
	keys, warns, _ := permissionKeys("/ws/app", true, schema.DialectCodex, schema.Permissions{DefaultMode: "plan", AdditionalDirectories: dirs})
	for _, k := range keys {
		if k.Path[0] == "sandbox_workspace_write" {
			t.Errorf("read-only codex got %s", dotted(k.Path))
		}
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "codex's sandbox is read-only under mode plan") {
		t.Errorf("read-only codex warnings = %q", warns)
	}
	keys, warns, _ = permissionKeys("/ws/app", true, schema.DialectGemini, schema.Permissions{Preset: schema.PresetStandard, AdditionalDirectories: dirs})
	if len(warns) > 0 || len(keys) != 2 || dotted(keys[1].Path) != "context.includeDirectories" || string(keys[1].Value) != `["../shared","/data","~/notes","sub/dir"]` {
		t.Errorf("gemini: %v %q", keys, warns)
	}
}

// TestGoosePlugin: Goose gets its hooks and stdio MCP servers in
// actctl's open plugin folder, .agents/plugins/actctl/ (hooks/hooks.json
// takes settings.goose's hooks; .mcp.json the stdio servers, a ${VAR}
// warned about since Goose documents no expansion there), and its custom
// agents in .agents/agents (issue #34 item 2).
func TestGoosePlugin(t *testing.T) {
	cfg := sampleConfig("goose", schema.ArchTool)
	tp := cfg.Templates["reviewer"]
	tp.Settings = map[string]map[string]any{"goose": {"hooks": map[string]any{"PostToolUse": []any{map[string]any{"matcher": "edit", "hooks": []any{map[string]any{"type": "command", "command": "./fmt.sh"}}}}}}}
	cfg.Templates["reviewer"] = tp
	cfg.MCPServers["fs"] = schema.MCPServer{Command: "fs-mcp", Env: map[string]string{"TOKEN": "${TOKEN}"}}
	tg := render(t, cfg, "reviewer", Options{})
	h := tg.Find(".agents/plugins/actctl/hooks/hooks.json")
	if h == nil || len(h.Keys) != 1 || dotted(h.Keys[0].Path) != "hooks.PostToolUse" || !strings.Contains(string(h.Keys[0].Value), `"command":"./fmt.sh"`) {
		t.Errorf("hooks: %+v", h)
	}
	m := tg.Find(".agents/plugins/actctl/.mcp.json")
	if m == nil || len(m.Keys) != 1 || dotted(m.Keys[0].Path) != "mcpServers.fs" || string(m.Keys[0].Value) != `{"command":"fs-mcp","env":{"TOKEN":"${TOKEN}"}}` {
		t.Errorf("mcp: %+v", m)
	}
	for _, w := range []string{`mcp server "fs": Goose does not document ${VAR} expansion in a plugin's .mcp.json`, `mcp server "github": Goose reads only stdio servers`} {
		if !hasWarning(tg, w) {
			t.Errorf("no warning %q: %q", w, tg.Warnings)
		}
	}
	if tg.Find(".agents/agents/tester.md") == nil || tg.Find(".gooseignore") != nil {
		t.Errorf("entries: %+v", tg.Entries)
	}
}

// TestPathRulesLongTail: a skill with paths is a path-scoped rule for
// Cline (.clinerules, paths), Qwen Code (.qwen/rules, paths), Kiro
// (.kiro/steering, inclusion fileMatch), Devin (.devin/rules, trigger
// glob) and Amp (.amp/rules, globs, @-mentioned from AGENTS.md), each
// frontmatter valid YAML holding the globs, and no skill nor
// "paths are not written" warning (issue #34 item 5).
func TestPathRulesLongTail(t *testing.T) {
	for _, c := range []struct {
		backend, path string
		want          map[string]any
	}{
		{"cline", ".clinerules/go-style.md", map[string]any{"description": "Go style", "paths": []any{"**/*.go", "go.mod"}}},
		{"qwen", ".qwen/rules/go-style.md", map[string]any{"description": "Go style", "paths": []any{"**/*.go", "go.mod"}}},
		{"kiro", ".kiro/steering/go-style.md", map[string]any{"inclusion": "fileMatch", "fileMatchPattern": []any{"**/*.go", "go.mod"}}},
		{"devin", ".devin/rules/go-style.md", map[string]any{"trigger": "glob", "globs": "**/*.go,go.mod", "description": "Go style"}},
		{"amp", ".amp/rules/go-style.md", map[string]any{"globs": []any{"**/*.go", "go.mod"}}},
	} {
		tg := render(t, sampleConfig(c.backend, schema.ArchTool), "reviewer", Options{})
		e := tg.Find(c.path)
		if e == nil {
			t.Errorf("%s: no %s", c.backend, c.path)
			continue
		}
		fm, body, ok := strings.Cut(strings.TrimPrefix(string(e.Content), "---\n"), "\n---\n")
		var got map[string]any
		if err := yaml.Unmarshal([]byte(fm), &got); !ok || err != nil || !reflect.DeepEqual(got, c.want) || body != "\nWrap errors with %w in acme/api.\n" {
			t.Errorf("%s: %s %v\n%s", c.backend, c.path, err, e.Content)
		}
		// Amp reads the file only where AGENTS.md @-mentions it.
		if ins := tg.Find("AGENTS.md"); c.backend == "amp" && (ins == nil || !strings.HasSuffix(string(ins.Content), "\n\n@.amp/rules/go-style.md\n")) {
			t.Errorf("amp: AGENTS.md does not mention the rule: %+v", ins)
		}
		if hasWarning(tg, "paths **/*.go, go.mod are not written") {
			t.Errorf("%s: %q", c.backend, tg.Warnings)
		}
		for _, x := range tg.Entries {
			if strings.Contains(x.Path, "skills/go-style") {
				t.Errorf("%s: the rule is also a skill: %s", c.backend, x.Path)
			}
		}
	}
}
