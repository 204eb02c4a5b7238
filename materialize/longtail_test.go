package materialize

import (
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestQwenMCP: Qwen Code takes a streamable HTTP server as httpUrl and an
// SSE one as url (its url is SSE only); stdio is the generic shape, and
// ${VAR} stays for its settings loader to expand. The dialect is JSON.
func TestQwenMCP(t *testing.T) {
	cases := []struct {
		srv  schema.MCPServer
		want string
	}{
		{schema.MCPServer{URL: "https://x.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
			`{"headers":{"Authorization":"Bearer ${TOKEN}"},"httpUrl":"https://x.example/mcp"}`},
		{schema.MCPServer{URL: "https://x.example/sse"}, `{"url":"https://x.example/sse"}`},
		{schema.MCPServer{Command: "srv", Args: []string{"${HOME}"}, Env: map[string]string{"T": "${T}"}},
			`{"args":["${HOME}"],"command":"srv","env":{"T":"${T}"}}`},
	}
	for _, c := range cases {
		v, _, err := mcpServerValue(dialectQwen, "s", c.srv)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(canonicalJSON(v)); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
	f := &schema.MCPFile{Path: "a.toml", Format: "toml", Key: "mcpServers", Dialect: "qwen"}
	if _, err := dialectFor(f); err == nil || !strings.Contains(err.Error(), "is written as json") {
		t.Errorf("qwen as toml: err = %v", err)
	}
}

// ignoreConfig is the sample agent on backend with the ignore lists
// secrets and build, and deny rules of its own when deny is given.
func ignoreConfig(backend string, deny ...string) *schema.Config {
	cfg := sampleConfig(backend, schema.ArchTool)
	cfg.Ignore = map[string]schema.Ignore{
		"secrets": {Patterns: []string{".env", "secrets/", "!secrets/README.md"}},
		"build":   {Patterns: []string{"dist/", ".env"}},
	}
	t := cfg.Templates["reviewer"]
	t.Ignore = []string{"secrets", "build"}
	t.Permissions = schema.Permissions{Deny: deny}
	cfg.Templates["reviewer"] = t
	return cfg
}

func renderIgnore(t *testing.T, cfg *schema.Config) (*Target, error) {
	t.Helper()
	r, err := cfg.Resolve("reviewer")
	if err != nil {
		t.Fatal(err)
	}
	return Render(cfg, r, Options{})
}

// TestIgnoreFiles: ignore lists become one block of patterns in a
// gitignore-style file (each pattern once, in order), Claude Code's
// Read() deny rules (merged with the agent's own deny rules, a negation
// left out with a warning), and a warning on a backend with no ignore
// file (Goose among them), where nothing is written for them.
func TestIgnoreFiles(t *testing.T) {
	entry := func(tg *Target, p string) *Entry {
		for i := range tg.Entries {
			if tg.Entries[i].Path == p {
				return &tg.Entries[i]
			}
		}
		return nil
	}
	for backend, p := range map[string]string{"cursor": ".cursorignore", "gemini": ".geminiignore", "cline": ".clineignore", "kiro": ".kiroignore", "qwen": ".qwenignore", "junie": ".aiignore", "kilo": ".kilocodeignore", "devin": ".devinignore", "antigravity": ".geminiignore", "cursor-agent": ".cursorignore"} {
		tg, err := renderIgnore(t, ignoreConfig(backend))
		if err != nil {
			t.Fatal(err)
		}
		e := entry(tg, p)
		if e == nil || e.Mode != ModeBlock || e.Style != StyleHash || string(e.Content) != ".env\nsecrets/\n!secrets/README.md\ndist/\n" {
			t.Errorf("%s: %s = %+v", backend, p, e)
		}
	}

	denyOf := func(tg *Target) string {
		e := entry(tg, ".claude/settings.json")
		if e == nil {
			return ""
		}
		for _, k := range e.Keys {
			if strings.Join(k.Path, ".") == "permissions.deny" {
				return string(k.Value)
			}
		}
		return ""
	}
	tg, err := renderIgnore(t, ignoreConfig("claude-code"))
	if err != nil {
		t.Fatal(err)
	}
	if got := denyOf(tg); got != `["Read(.env)","Read(secrets/)","Read(dist/)"]` {
		t.Errorf("claude deny = %s", got)
	}
	if !slices.ContainsFunc(tg.Warnings, func(w string) bool { return strings.Contains(w, `"!secrets/README.md" re-includes`) }) {
		t.Errorf("no warning for the negation: %v", tg.Warnings)
	}
	tg, err = renderIgnore(t, ignoreConfig("claude-code", "Bash(rm:*)"))
	if err != nil {
		t.Fatal(err)
	}
	if got := denyOf(tg); got != `["Bash(rm:*)","Read(.env)","Read(secrets/)","Read(dist/)"]` {
		t.Errorf("claude deny with the agent's rules = %s", got)
	}

	// Goose no longer reads .gooseignore (removed upstream): none is
	// written, and the warning says the agent can read those paths
	// (issue #34 item 2).
	for _, backend := range []string{"codex", "copilot", "opencode", "pi", "amp", "goose"} {
		tg, err := renderIgnore(t, ignoreConfig(backend))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(tg.Warnings, func(w string) bool {
			return strings.Contains(w, `backend "`+backend+`" has no ignore file: ignore secrets, build`)
		}) {
			t.Errorf("%s: no warning: %v", backend, tg.Warnings)
		}
		for _, e := range tg.Entries {
			if strings.Contains(string(e.Content), "secrets/") || (strings.Contains(e.Path, "ignore") && e.Path != GitignorePath) {
				t.Errorf("%s: wrote %s for the ignore lists", backend, e.Path)
			}
		}
	}
}

// TestIgnoreBadInput: a pattern of two lines, a blank pattern or an
// undeclared list stops the render with a message naming it.
func TestIgnoreBadInput(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		ref, msg string
	}{
		{[]string{"a\nb"}, "secrets", `ignore list "secrets": pattern "a\nb" is not one line`},
		{[]string{"  "}, "secrets", `ignore list "secrets": pattern "  " is not one line`},
		{[]string{"x"}, "nope", `ignore list "nope" is not declared`},
	} {
		cfg := ignoreConfig("cursor")
		cfg.Ignore["secrets"] = schema.Ignore{Patterns: c.patterns}
		tpl := cfg.Templates["reviewer"]
		tpl.Ignore = []string{c.ref}
		cfg.Templates["reviewer"] = tpl
		if _, err := renderIgnore(t, cfg); err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: err = %v, want %q", c.patterns, err, c.msg)
		}
	}
}

// TestDevinSubAgent: a Devin sub-agent is a directory named for it with
// AGENT.md (name, description, model, an allowed-tools list); the format
// takes no file ending.
func TestDevinSubAgent(t *testing.T) {
	l := &schema.DirLayout{Dir: ".devin/agents", Format: schema.FormatDevinSub}
	s := subAgent{name: "tester", desc: "Writes tests", prompt: "Be brief.", sa: &schema.SubAgent{Tools: []string{"read", "exec"}, Model: "swe-1.5"}}
	p, b, warns, err := subAgentFile(l, s)
	if err != nil || len(warns) != 0 {
		t.Fatal(err, warns)
	}
	want := "---\nname: tester\ndescription: Writes tests\nmodel: swe-1.5\nallowed-tools: [\"read\", \"exec\"]\n---\n\nBe brief.\n"
	if p != ".devin/agents/tester/AGENT.md" || string(b) != want {
		t.Errorf("%s:\n%s\nwant\n%s", p, b, want)
	}
	cfg := sampleConfig("devin", schema.ArchTool)
	be := cfg.Backends["devin"]
	be.Files.SubAgents = &schema.DirLayout{Dir: ".devin/agents", Format: schema.FormatDevinSub, Ext: ".md"}
	cfg.Backends["devin"] = be
	r, err := cfg.Resolve("reviewer")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Render(cfg, r, Options{}); err == nil || !strings.Contains(err.Error(), `sub-agents format devin writes <dir>/<name>/AGENT.md: ext ".md" does not apply`) {
		t.Errorf("ext on devin: err = %v", err)
	}
}

// TestQwenPermissions maps every mode onto Qwen Code's
// tools.approvalMode, passes the rules as permissions.allow/ask/deny, and
// warns about what Qwen Code cannot take.
func TestQwenPermissions(t *testing.T) {
	for preset, want := range map[string]string{
		schema.PresetReadonly:   `"plan"`,
		schema.PresetRestricted: `"default"`,
		schema.PresetStandard:   `"auto-edit"`,
		schema.PresetPermissive: `"yolo"`,
	} {
		keys, warns, err := permissionKeys("/ws", true, schema.DialectQwen, schema.Permissions{Preset: preset})
		if err != nil || len(warns) != 0 || len(keys) != 1 || dotted(keys[0].Path) != "tools.approvalMode" || string(keys[0].Value) != want {
			t.Errorf("%s: %v %v %v", preset, keys, warns, err)
		}
	}
	p := schema.Permissions{DefaultMode: "dontAsk", Allow: []string{"Bash(go test:*)"}, Deny: []string{"Read(.env)"}, AdditionalDirectories: []string{"../x"}}
	keys, warns, err := permissionKeys("/ws", true, schema.DialectQwen, p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range keys {
		got = append(got, dotted(k.Path)+"="+string(k.Value))
	}
	if want := `tools.approvalMode="plan" permissions.allow=["Bash(go test:*)"] permissions.deny=["Read(.env)"]`; strings.Join(got, " ") != want {
		t.Errorf("keys = %s\nwant   %s", strings.Join(got, " "), want)
	}
	if len(warns) != 2 || !strings.Contains(warns[0], "dontAsk has no Qwen Code setting") || !strings.Contains(warns[1], "additionalDirectories cannot be expressed for qwen") {
		t.Errorf("warns = %q", warns)
	}
	if err := checkPermFile(&schema.PermissionsFile{Path: "a.toml", Format: "toml", Dialect: schema.DialectQwen}); err == nil {
		t.Error("qwen permissions as toml accepted")
	}
}

// TestDevinPermissions translates Claude Code's rules into Devin's scope
// matchers, warns about what Devin cannot take (a mode, a tool it has no
// scope for, additional directories) and about an exact command allowed
// as a prefix.
func TestDevinPermissions(t *testing.T) {
	p := schema.Permissions{
		DefaultMode:           "plan",
		Allow:                 []string{"Bash(go test:*)", "Bash(git status)", "Read(src/**)", "Edit(src/**)", "Write(src/**)", "mcp__github__get_issue", "Grep"},
		Ask:                   []string{"WebFetch(domain:example.com)", "Bash"},
		Deny:                  []string{"Read(.env)", "Bash(rm -rf:*)", "Read(broken"},
		AdditionalDirectories: []string{"../x"},
	}
	keys, warns, err := permissionKeys("/ws", true, schema.DialectDevin, p)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range keys {
		got = append(got, dotted(k.Path)+"="+string(k.Value))
	}
	want := `permissions.allow=["Exec(go test)","Exec(git status)","Read(src/**)","Write(src/**)","mcp__github__get_issue"] ` +
		`permissions.ask=["Fetch(example.com)","Exec"] permissions.deny=["Read(.env)","Exec(rm -rf)"]`
	if strings.Join(got, " ") != want {
		t.Errorf("keys = %s\nwant   %s", strings.Join(got, " "), want)
	}
	for _, w := range []string{"mode plan has no Devin setting", `"Bash(git status)": Devin matches Exec(git status) as a prefix`, `"Grep" has no Devin form`, `"Read(broken" is not Tool(pattern)`, "additionalDirectories cannot be expressed for devin"} {
		if !slices.ContainsFunc(warns, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("no warning %q in %q", w, warns)
		}
	}
	if len(warns) != 5 {
		t.Errorf("warns = %q", warns)
	}
}
