package schema

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/benchconfig"
)

func writeWorkspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustLoad(t *testing.T, files map[string]string) *Config {
	t.Helper()
	dir := writeWorkspace(t, files)
	cfg, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return cfg
}

func TestBuiltinDefaults(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"actant.cue": `package actant
templates: t: backend: "claude-code"
agents: a: template: "t"
`})
	b := cfg.Backends["claude-code"]
	if b.ACP == nil || b.ACP.Command != "claude-agent-acp" || !b.HasMode(ModeACP) {
		t.Errorf("claude-code acp = %+v", b.ACP)
	}
	if got := b.Files.Instructions; !reflect.DeepEqual(got, []string{"CLAUDE.md"}) {
		t.Errorf("instructions = %v", got)
	}
	for _, name := range []string{"claude-code", "codex", "gemini", "cursor", "cursor-agent", "antigravity", "pi", "copilot", "opencode", "devin", "cline", "kiro", "amp", "qwen", "goose", "kilo", "junie", "factory", "auggie", "warp", "zed", "aiassistant", "crush", "vibe", "kimi", "rovodev", "deepagents", "grok", "zoo", "custom"} {
		if _, ok := cfg.Backends[name]; !ok {
			t.Errorf("built-in backend %s missing", name)
		}
	}
	want := map[string]Archetype{
		"tool":     {LaunchMode: "direct", InteractionModes: []string{"open", "start", "chat", "run", "proxy"}, Workspace: "project", ProcessCwd: "workspace", SessionCwd: "client", WorkDirConflict: "append", Gitignore: []string{"/.actant/"}, Materialize: "minimal"},
		"repo":     {LaunchMode: "direct", InteractionModes: []string{"open", "start", "chat", "run", "proxy"}, Workspace: "instance", ProcessCwd: "workspace", SessionCwd: "workspace", WorkDirConflict: "error", Gitignore: []string{"/.actant/"}, Materialize: "full"},
		"employee": {LaunchMode: "acp-background", InteractionModes: []string{"start", "run", "proxy"}, AutoStart: true, Workspace: "instance", ProcessCwd: "workspace", SessionCwd: "workspace+client", WorkDirConflict: "error", Gitignore: []string{}, Materialize: "full", Restart: "on-failure", TurnTimeout: "30m", StallAfter: "10m"},
		"service":  {LaunchMode: "acp-service", InteractionModes: []string{"start", "proxy"}, AutoStart: true, Workspace: "instance", ProcessCwd: "workspace", SessionCwd: "client", WorkDirConflict: "error", Gitignore: []string{}, Materialize: "full", Restart: "on-failure", TurnTimeout: "30m", StallAfter: "10m"},
	}
	for name, w := range want {
		if got := cfg.Archetypes[name]; !reflect.DeepEqual(got, w) {
			t.Errorf("archetype %s =\n%+v\nwant\n%+v", name, got, w)
		}
	}
	r, err := cfg.Resolve("a")
	if err != nil {
		t.Fatal(err)
	}
	if !r.Permissions.Unset() || r.Conflict != ConflictAppend || r.Dir != cfg.Root || r.Template.Version != "0.1.0" {
		t.Errorf("resolved = %+v", r)
	}
}

// TestOverrides checks that built-in defaults are CUE defaults: a user's
// own value wins, and a new backend can be declared entirely in CUE.
func TestOverrides(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"actant.cue": `package actant
backends: "claude-code": acp: {command: "/opt/bin/my-acp", args: ["--verbose"]}
archetypes: tool: workDirConflict: "skip"
backends: mine: {
	modes: ["acp"]
	acp: command: "my-agent"
	files: {
		instructions: ["MINE.md"]
		skills: {dir: ".mine/skills", format: "markdown"}
		mcp: {path: ".mine/mcp.json", format: "json", key: "servers"}
	}
}
templates: t: {backend: "mine", permissions: {allow: ["Read"], defaultMode: "plan"}}
agents: a: {template: "t", workDir: "sub", vars: x: "1"}
`, "sub/.keep": ""})
	b := cfg.Backends["claude-code"]
	if b.ACP.Command != "/opt/bin/my-acp" || !reflect.DeepEqual(b.ACP.Args, []string{"--verbose"}) {
		t.Errorf("acp override = %+v", b.ACP)
	}
	if b.Open == nil || b.Open.Command != "claude" {
		t.Errorf("open lost by the override: %+v", b.Open)
	}
	if got := cfg.Archetypes["tool"].WorkDirConflict; got != "skip" {
		t.Errorf("tool workDirConflict = %q", got)
	}
	r, err := cfg.Resolve("a")
	if err != nil {
		t.Fatal(err)
	}
	if r.Backend.Files.Skills.Dir != ".mine/skills" || r.Backend.Files.MCP.Key != "servers" {
		t.Errorf("custom backend files = %+v", r.Backend.Files)
	}
	if r.Conflict != "skip" || r.Dir != filepath.Join(cfg.Root, "sub") {
		t.Errorf("conflict %q dir %q", r.Conflict, r.Dir)
	}
	if r.Permissions.Preset != "" || r.Permissions.DefaultMode != "plan" || !reflect.DeepEqual(r.Permissions.Allow, []string{"Read"}) {
		t.Errorf("permissions = %+v", r.Permissions)
	}
}

func TestSkillSources(t *testing.T) {
	cfg := mustLoad(t, map[string]string{
		"actant.cue": `package actant
skills: {
	inline: {description: "d", content: "body"}
	one: file: "docs/one.md"
	dirskill: dir: "skills/dirskill"
}
`,
		"docs/one.md":                 "---\nname: one\ndescription: \"From the file\"\n---\n\n# One\n",
		"skills/dirskill/SKILL.md":    "---\nname: dirskill\ndescription: A dir skill\n---\nBody\n",
		"skills/dirskill/ref/more.md": "more",
	})
	if s := cfg.Skills["one"]; s.Description != "From the file" || s.Content != "# One\n" {
		t.Errorf("file skill = %+v", s)
	}
	s := cfg.Skills["dirskill"]
	if s.Description != "A dir skill" || s.Content != "Body\n" || string(s.Files["ref/more.md"]) != "more" || len(s.Files) != 1 {
		t.Errorf("dir skill = %+v", s)
	}
}

func TestMissingSkillFileIsPositioned(t *testing.T) {
	dir := writeWorkspace(t, map[string]string{"actant.cue": "package actant\n\nskills: one: file: \"nope.md\"\n"})
	_, err := LoadDir(dir, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "actant.cue:3:20: skills.one.file: read ") {
		t.Fatalf("err = %v", err)
	}
}

// TestCueModImport loads a workspace that imports a package of its own
// CUE module, as users with cue.mod/ can.
func TestCueModImport(t *testing.T) {
	cfg := mustLoad(t, map[string]string{
		"cue.mod/module.cue": "module: \"example.com/team@v0\"\nlanguage: version: \"v0.9.0\"\n",
		"shared/shared.cue":  "package shared\n\nbackend: \"codex\"\n",
		"actant.cue":         "package actant\n\nimport \"example.com/team/shared\"\n\ntemplates: t: backend: shared.backend\n",
		"more.cue":           "package actant\n\nagents: a: template: \"t\"\n",
	})
	if cfg.Templates["t"].Backend != "codex" || cfg.Agents["a"].Template != "t" || len(cfg.Files) != 2 {
		t.Fatalf("templates %+v agents %+v files %v", cfg.Templates, cfg.Agents, cfg.Files)
	}
}

func TestCheckName(t *testing.T) {
	for name, ok := range map[string]bool{
		"reviewer": true, "a": true, "go-testing.v2": true, "x_1": true,
		"": false, "../evil": false, "A B": false, "Upper": false, "-x": false, "a..b": false,
		strings.Repeat("a", 63): true, strings.Repeat("a", 64): false, "a/b": false,
	} {
		if got := CheckName(name) == ""; got != ok {
			t.Errorf("CheckName(%q) ok = %v, want %v", name, got, ok)
		}
	}
}

func TestSuggest(t *testing.T) {
	cands := []string{"claude-code", "codex", "gemini"}
	for in, want := range map[string]string{"claud-code": "claude-code", "codx": "codex", "zzzzzzzz": "", "gemni": "gemini"} {
		if got := suggest(in, cands); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			dir := writeWorkspace(b, benchconfig.FilesSkills(n, 20))
			home := b.TempDir()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cfg, err := LoadDir(dir, home)
				if err != nil {
					b.Fatal(err)
				}
				if len(cfg.Agents) != n {
					b.Fatalf("%d agents", len(cfg.Agents))
				}
			}
		})
	}
}

// TestSkillDirExecutable: a directory skill's executable files are marked
// so the materializer keeps their mode.
func TestSkillDirExecutable(t *testing.T) {
	dir := t.TempDir()
	files := map[string]os.FileMode{"SKILL.md": 0o644, "scripts/run.sh": 0o755, "scripts/owner-only": 0o700, "ref.md": 0o644}
	for name, mode := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	s, err := ReadSkillDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]bool{"scripts/run.sh": true, "scripts/owner-only": true}; !reflect.DeepEqual(s.Executable, want) {
		t.Errorf("Executable = %v, want %v", s.Executable, want)
	}
}

// TestSkillFrontmatterYAML: skill frontmatter is read as YAML (folded
// scalars, doubled single quotes) and every field is kept in Skill.Meta, for file,
// dir and inline skills alike.
func TestSkillFrontmatterYAML(t *testing.T) {
	fm := "---\nname: x\ndescription: >-\n  Folded\n  text.\nlicense: 'It''s MIT'\nmetadata:\n  a: b\n---\n\nBody\n"
	cfg := mustLoad(t, map[string]string{
		"actant.cue": "package actant\nskills: {\n\tone: file: \"one.md\"\n\tdir: dir: \"d\"\n\tinline: content: \"---\\nlicense: 'It''s MIT'\\n---\\nBody\\n\"\n}\n",
		"one.md":     fm,
		"d/SKILL.md": fm,
	})
	for _, name := range []string{"one", "dir"} {
		s := cfg.Skills[name]
		lic, _, _ := s.Meta.Text("license")
		if s.Description != "Folded text." || lic != "It's MIT" || s.Content != "Body\n" ||
			strings.Join(s.Meta.Keys(), ",") != "name,description,license,metadata" {
			t.Errorf("%s: description %q license %q content %q keys %v", name, s.Description, lic, s.Content, s.Meta.Keys())
		}
	}
	if lic, _, _ := cfg.Skills["inline"].Meta.Text("license"); lic != "It's MIT" || cfg.Skills["inline"].Content != "Body\n" {
		t.Errorf("inline: %+v", cfg.Skills["inline"])
	}
}

// TestSkillFrontmatterInvalid: invalid YAML frontmatter stops loading,
// reported at its line in the skill's file.
func TestSkillFrontmatterInvalid(t *testing.T) {
	cases := []struct{ file, want string }{
		{"---\nname: x\ndescription: a: b\n---\nBody\n", "d/SKILL.md:3:1: skills.bad: frontmatter: invalid YAML: mapping values are not allowed"},
		{"---\nname: x\nname: y\n---\n", `d/SKILL.md:3:1: skills.bad: frontmatter: field "name" is given twice`},
		{"---\ndescription: [a, b]\n---\n", `d/SKILL.md:2:1: skills.bad: frontmatter: field "description" must be a string`},
		{"---\nname: x\n", "d/SKILL.md:1:1: skills.bad: frontmatter: the frontmatter opened here is never closed"},
	}
	for _, c := range cases {
		dir := writeWorkspace(t, map[string]string{"actant.cue": "package actant\nskills: bad: dir: \"d\"\n", "d/SKILL.md": c.file})
		_, err := LoadDir(dir, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err = %v\nwant %s", c.file, err, c.want)
		}
	}
}

// TestBackendDialects: a user-defined backend declares the dialect of its
// MCP and permissions files; the schema rejects unknown dialects and the
// former double meaning of key for permissions; defaultMode accepts every
// current Claude Code mode; a template can describe itself as a sub-agent.
func TestBackendDialects(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"actant.cue": `package actant
backends: foo: {
	modes: ["acp"]
	acp: command: "foo-acp"
	files: {
		mcp: {path: ".foo/mcp.json", format: "json", key: "mcpServers", dialect: "claude"}
		permissions: {path: ".foo/settings.json", format: "json", dialect: "claude"}
	}
}
templates: t: {backend: "foo", permissions: {defaultMode: "dontAsk", additionalDirectories: ["../lib"]}}
templates: u: {backend: "foo", permissions: defaultMode: "auto", subAgent: {tools: ["Read", "Grep"], model: "haiku"}}
`})
	f := cfg.Backends["foo"].Files
	if f.MCP.Dialect != DialectClaude || f.Permissions.Dialect != DialectClaude {
		t.Errorf("files = %+v %+v", *f.MCP, *f.Permissions)
	}
	if p := cfg.Templates["t"].Permissions; p.DefaultMode != "dontAsk" || !reflect.DeepEqual(p.AdditionalDirectories, []string{"../lib"}) {
		t.Errorf("permissions = %+v", p)
	}
	if u := cfg.Templates["u"]; u.Permissions.DefaultMode != "auto" || u.SubAgent == nil || u.SubAgent.Model != "haiku" || len(u.SubAgent.Tools) != 2 {
		t.Errorf("template u = %+v", u)
	}
	if d := cfg.Backends["codex"].Files.MCP.Dialect; d != DialectCodex {
		t.Errorf("codex mcp dialect = %q", d)
	}
	for _, bad := range []string{
		`backends: foo: files: mcp: {path: "m.json", format: "json", key: "mcpServers", dialect: "vim"}`,
		`backends: foo: files: permissions: {path: "s.json", format: "json", key: "claude"}`,
		`templates: t: {backend: "claude-code", permissions: defaultMode: "yolo"}`,
	} {
		dir := writeWorkspace(t, map[string]string{"actant.cue": "package actant\n" + bad + "\n"})
		if _, err := LoadDir(dir, t.TempDir()); err == nil || !strings.Contains(err.Error(), "actant.cue:2:") {
			t.Errorf("%s: err = %v, want an error at actant.cue:2", bad, err)
		}
	}
}

// TestImportFailure: a failing CUE import names the import and the
// reason, at the import's position (CUE itself says only "import failed").
func TestImportFailure(t *testing.T) {
	const mod = "module: \"example.com/m\"\nlanguage: version: \"v0.9.0\"\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"no cue.mod", map[string]string{"actant.cue": "package actant\n\nimport \"example.com/foo\"\n\nx: foo.y\n"},
			[]string{`actant.cue:3:8: import "example.com/foo" failed: imports are unavailable because there is no cue.mod/module.cue file`, "cue mod init"}},
		{"missing package", map[string]string{"actant.cue": "package actant\n\nimport \"example.com/m/foo\"\n\nx: foo.y\n", "cue.mod/module.cue": mod},
			[]string{`actant.cue:3:8: import "example.com/m/foo" failed: cannot find package "example.com/m/foo"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeWorkspace(t, tt.files)
			_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
			if err == nil {
				t.Fatal("loaded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// TestSettingsNumbersExact: numbers in native settings reach the renderer
// as written: an integer beyond int64 and a float keep their digits.
func TestSettingsNumbersExact(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"actant.cue": `package actant
templates: t: {backend: "claude-code", settings: "claude-code": {big: 12345678901234567890, small: 7, f: 0.1, list: [1, 2.5]}}
`})
	got, err := json.Marshal(cfg.Templates["t"].Settings["claude-code"])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"big":12345678901234567890,"f":0.1,"list":[1,2.5],"small":7}`; string(got) != want {
		t.Errorf("settings = %s, want %s", got, want)
	}
}

// TestBadModuleFileSaysWhy: a cue.mod/module.cue CUE refuses is reported
// with CUE's reason; a wrapped error kept its text out of Msg, and the
// command printed "actctl: " and nothing else.
func TestBadModuleFileSaysWhy(t *testing.T) {
	for _, tc := range []struct{ module, want string }{
		{"modulex: 3\n", "no language version declared in module.cue"},
		{"module: \"x.y/z\"\nlanguage: version: \"v0.9.0\"\nbad bad\n", "invalid module file syntax"},
	} {
		dir := writeWorkspace(t, map[string]string{"actant.cue": "package actant\n", "cue.mod/module.cue": tc.module})
		_, err := LoadDir(dir, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("module.cue %q: err = %v, want it to say %q", tc.module, err, tc.want)
		}
	}
}
