package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// validHeader starts every test config.
const validHeader = "package actant\n\n"

// TestValidateBadInput drives `actctl validate` over bad inputs end to
// end: each must exit 1, name the problem, carry the position of the
// offending field in the `actctl: ` form, and write nothing. The schema's
// table (schema.TestValidateBadInput) has every case of the config issue;
// here one of them, and the collision the renderer finds.
func TestValidateBadInput(t *testing.T) {
	base := `
skills: "go-testing": content: "x {{lang}}"
prompts: review: content: "y"
mcpServers: fs: command: "npx"
templates: reviewer: {
	backend: "claude-code"
	skills: ["go-testing"]
	prompts: ["review"]
	mcpServers: ["fs"]
}
`
	tests := []struct {
		name string
		cue  string
		want []string // substrings of stderr
		pos  string   // "line:col" of the first diagnostic, "" to only require a position
	}{
		{"unknown backend", "templates: t: backend: \"claud-code\"\n", []string{`unknown backend "claud-code"`, `did you mean "claude-code"`}, "3:24"},
		// The same skill with other vars: two contents for one file (the
		// same bytes would be written once, issue #23 item 12).
		{"two agents own one file", base + "agents: a: {template: \"reviewer\", vars: lang: \"go\"}\nagents: b: {template: \"reviewer\", vars: lang: \"rust\"}\n", []string{".claude/skills/go-testing/SKILL.md: file is owned by two agents", "agents.b"}, ""},
	}
	posRE := regexp.MustCompile(`actant\.cue:(\d+):(\d+): `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			home := filepath.Join(t.TempDir(), "home")
			src := strings.ReplaceAll(validHeader+tt.cue, "HOME", home)
			writeFiles(t, dir, map[string]string{"actant.cue": src})
			r := actctl(t, dir, home, "validate")
			if r.Code != 1 {
				t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.Stderr)
				}
			}
			m := posRE.FindStringSubmatch(r.Stderr)
			if m == nil {
				t.Fatalf("no file:line:col position in:\n%s", r.Stderr)
			}
			if tt.pos != "" && m[1]+":"+m[2] != tt.pos {
				t.Errorf("position %s:%s, want %s\n%s", m[1], m[2], tt.pos, r.Stderr)
			}
			for _, line := range strings.Split(strings.TrimSpace(r.Stderr), "\n") {
				if !strings.HasPrefix(line, "actctl: ") {
					t.Errorf("line not in `actctl: ...` form: %q", line)
				}
			}
			if files := listFiles(t, dir); len(files) != 1 {
				t.Errorf("validate wrote files: %v", files)
			}
			if _, err := os.Stat(home); err == nil {
				t.Errorf("validate created the home %s", home)
			}
		})
	}
}

// TestValidateListsEveryError checks that all problems are reported at
// once, each with its own position.
func TestValidateListsEveryError(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"actant.cue": validHeader + `
templates: t: backend: "claud-code"
agents: {
	a: template: "tt"
	b: template: "t"
	"B": template: "t"
}
`})
	r := actctl(t, dir, "", "validate")
	if r.Code != 1 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, w := range []string{
		"actant.cue:4:24: templates.t.backend: unknown backend \"claud-code\"",
		"actant.cue:6:15: agents.a.template: unknown template \"tt\" (did you mean \"t\"?)",
		"actant.cue:8:2: agents.B: invalid name \"B\"",
	} {
		if !strings.Contains(r.Stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.Stderr)
		}
	}
}

func TestNoWorkspace(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(t.TempDir(), "home")
	r := actctl(t, dir, home, "validate")
	if r.Code != 1 {
		t.Fatalf("exit %d, want 1: %s", r.Code, r.Stderr)
	}
	for _, w := range []string{"no actant.cue found", dir, home, "actctl init"} {
		if !strings.Contains(r.Stderr, w) {
			t.Errorf("stderr lacks %q: %s", w, r.Stderr)
		}
	}
	r = actctl(t, t.TempDir(), home, "-C", dir, "get", "agents")
	if r.Code != 1 || !strings.Contains(r.Stderr, "no actant.cue in "+dir) {
		t.Errorf("-C on an empty dir: exit %d: %s", r.Code, r.Stderr)
	}
}

func TestUnreadableConfig(t *testing.T) {
	dir := t.TempDir()
	// A symlink loop cannot be read, even by root (chmod 000 can).
	if err := os.Symlink("actant.cue", filepath.Join(dir, "actant.cue")); err != nil {
		t.Fatal(err)
	}
	r := actctl(t, dir, "", "validate")
	if r.Code != 1 || !strings.Contains(r.Stderr, "read "+filepath.Join(dir, "actant.cue")) {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if os.Geteuid() != 0 {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"actant.cue": validHeader})
		os.Chmod(filepath.Join(dir, "actant.cue"), 0)
		r := actctl(t, dir, "", "validate")
		if r.Code != 1 || !strings.Contains(r.Stderr, "permission denied") {
			t.Fatalf("chmod 000: exit %d: %s", r.Code, r.Stderr)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"get"}, {"get", "nonsense"}, {"-o", "xml", "version"}, {"validate", "--bogus"}, {"frobnicate"}} {
		r := actctl(t, dir, "", args...)
		if r.Code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", args, r.Code, r.Stderr)
		}
	}
}

// TestQuickstart runs validate and get on the bundled example, as the
// README tells a newcomer to.
func TestQuickstart(t *testing.T) {
	root, _ := filepath.Abs("../../examples/quickstart")
	r := actctl(t, t.TempDir(), "", "-C", root, "validate")
	if r.Code != 0 {
		t.Fatalf("validate quickstart: %s", r.Stderr)
	}
	r = actctl(t, t.TempDir(), "", "-C", root, "-o", "json", "get", "agents")
	if r.Code != 0 {
		t.Fatalf("get agents: %s", r.Stderr)
	}
	var agents []agentJSON
	if err := json.Unmarshal([]byte(r.Stdout), &agents); err != nil {
		t.Fatalf("get agents -o json: %v\n%s", err, r.Stdout)
	}
	if len(agents) != 2 || agents[0].Name != "fixer" || agents[0].Backend != "codex" || agents[1].Backend != "claude-code" || agents[1].Dir != root {
		t.Fatalf("agents = %+v", agents)
	}
	for _, kind := range []string{"templates", "backends", "skills", "prompts", "mcp"} {
		if r := actctl(t, t.TempDir(), "", "-C", root, "get", kind); r.Code != 0 || r.Stdout == "" {
			t.Errorf("get %s: exit %d: %s", kind, r.Code, r.Stderr)
		}
	}
}

// TestValidateListsEveryTypeError: CUE-level errors in several entries are
// all reported, each at its position, and a value outside an enumeration
// reads as one line naming the allowed values.
func TestValidateListsEveryTypeError(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"actant.cue": validHeader +
		"templates: t: {backend: \"claude-code\", archetype: \"boss\"}\n" +
		"agents: a: {template: \"t\", workDir: 3}\n" +
		"prompts: p: content: 5\n"})
	r := actctl(t, dir, "", "validate")
	if r.Code != 1 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, w := range []string{
		`actant.cue:3:51: templates.t.archetype: "boss" is not one of "employee", "repo", "service", "tool"`,
		`actant.cue:4:37: agents.a.workDir: want a string, got 3`,
		`actant.cue:5:22: prompts.p.content: want a string, got 5`,
	} {
		if !strings.Contains(r.Stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, r.Stderr)
		}
	}
	if strings.Contains(r.Stderr, "empty disjunction") {
		t.Errorf("raw disjunction noise:\n%s", r.Stderr)
	}
}
