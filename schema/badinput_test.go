package schema

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestValidateBadInput loads every bad input the config issue names: each
// is refused, names the problem, carries the position of the offending
// field, and nothing is written (not even the actctl home). Two of them
// also run through the binary (cmd/actctl TestValidateBadInput); a config
// two agents' files collide in is refused by the renderer, not here (also
// there).
func TestValidateBadInput(t *testing.T) {
	base := `
skills: "go-testing": content: "x"
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
		want []string // substrings of the diagnostics
		pos  string   // "line:col" of the first diagnostic, "" to only require a position
	}{
		{"syntax error", "agents: reviewer: {template: \"reviewer\"\n", []string{"actant.cue:"}, ""},
		{"type error", base + "templates: boss: {backend: \"claude-code\", archetype: \"boss\"}\n", []string{"templates.boss.archetype", "boss"}, ""},
		{"unknown backend", "templates: t: backend: \"claud-code\"\n", []string{`unknown backend "claud-code"`, `did you mean "claude-code"`}, "3:24"},
		{"unknown template", base + "agents: a: template: \"reviewr\"\n", []string{`unknown template "reviewr"`, `did you mean "reviewer"`}, ""},
		{"unknown skill", base + "templates: t2: {backend: \"codex\", skills: [\"go-testin\"]}\n", []string{`unknown skill "go-testin"`, `did you mean "go-testing"`}, ""},
		{"unknown prompt", base + "templates: t2: {backend: \"codex\", prompts: [\"reveiw\"]}\n", []string{`unknown prompt "reveiw"`, `did you mean "review"`}, ""},
		{"unknown mcp", base + "templates: t2: {backend: \"codex\", mcpServers: [\"fss\"]}\n", []string{`unknown MCP server "fss"`, `did you mean "fs"`}, ""},
		{"unknown command", base + "commands: \"fix-issue\": content: \"Fix $ARGUMENTS\"\ntemplates: t2: {backend: \"claude-code\", commands: [\"fix-isue\"]}\n", []string{`templates.t2.commands[0]: unknown command "fix-isue"`, `did you mean "fix-issue"`}, ""},
		{"settings for an unknown backend", base + "templates: t2: {backend: \"codex\", settings: codx: model: \"o3\"}\n", []string{`templates.t2.settings.codx: unknown backend "codx"`, `did you mean "codex"`}, ""},
		{"null in TOML settings", base + "templates: t2: {backend: \"codex\", settings: codex: profiles: fast: model: null}\n", []string{`templates.t2.settings.codex.profiles.fast.model: null cannot be written to .codex/config.toml`}, ""},
		{"unknown hub source", base + "hub: team: url: \"https://example.com/hub.git\"\nagents: a: template: \"teem@x\"\n", []string{`hub source "teem" is not declared`, `did you mean "team@x"`}, ""},
		{"path trick name", base + "agents: \"../evil\": template: \"reviewer\"\n", []string{`invalid name "../evil"`}, ""},
		{"name with space", base + "agents: \"A B\": template: \"reviewer\"\n", []string{`invalid name "A B"`}, ""},
		{"name too long", base + "agents: \"" + strings.Repeat("a", 70) + "\": template: \"reviewer\"\n", []string{`invalid name "` + strings.Repeat("a", 70) + `"`}, ""},
		{"employee without schedule", "templates: e: {backend: \"claude-code\", archetype: \"employee\"}\n", []string{"an employee needs a schedule"}, ""},
		{"service with schedule", "templates: s: {backend: \"claude-code\", archetype: \"service\", schedule: heartbeat: {interval: \"5m\", prompt: \"check\"}}\n", []string{"a service must not have a schedule"}, ""},
		{"ephemeral service", "templates: s: {backend: \"claude-code\", archetype: \"service\", workspacePolicy: \"ephemeral\"}\n", []string{"templates.s.workspacePolicy: a service must be persistent"}, "3:79"},
		{"service without acp", "templates: c: {backend: \"cursor\", archetype: \"service\"}\n", []string{`templates.c.backend: backend "cursor" has no acp command, but launchMode "acp-service"`, `give "cursor" an acp command`}, "3:25"},
		{"missing import", "import \"example.com/foo\"\n\nx: foo.y\n", []string{`import "example.com/foo" failed: imports are unavailable because there is no cue.mod/module.cue file`}, "3:8"},
		{"workDir is the root", base + "agents: a: {template: \"reviewer\", workDir: \"/\"}\n", []string{"agents.a.workDir: workDir / is the root of the file system"}, "13:44"},
		{"workDir is .git", base + "agents: a: {template: \"reviewer\", workDir: \".git\"}\n", []string{"agents.a.workDir: workDir", ".git is inside a .git directory"}, "13:44"},
		{"workDir inside home", base + "agents: a: {template: \"reviewer\", workDir: \"HOME/projects/x\"}\n", []string{"is inside the actctl home"}, ""},
		{"leaseTTL not a duration", "archetypes: service: leaseTTL: \"soon\"\n", []string{`archetypes.service.leaseTTL: leaseTTL "soon": want a positive duration`}, "3:32"},
		{"unknown top-level field", base + "agent: a: template: \"reviewer\"\n", []string{`unknown top-level field "agent"`, `did you mean "agents"`}, ""},
		{"unknown agent field", base + "agents: a: {template: \"reviewer\", wrkDir: \".\"}\n", []string{`agents.a.wrkDir: unknown field "wrkDir" (did you mean "workDir"?)`}, ""},
	}
	posRE := regexp.MustCompile(`actant\.cue:(\d+):(\d+): `)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "home")
			src := "package actant\n\n" + strings.ReplaceAll(tt.cue, "HOME", home)
			dir := writeWorkspace(t, map[string]string{"actant.cue": src})
			_, err := LoadDir(dir, home)
			if err == nil {
				t.Fatal("loaded; want it refused")
			}
			got := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("diagnostics lack %q:\n%s", w, got)
				}
			}
			m := posRE.FindStringSubmatch(got)
			if m == nil {
				t.Fatalf("no file:line:col position in:\n%s", got)
			}
			if tt.pos != "" && m[1]+":"+m[2] != tt.pos {
				t.Errorf("position %s:%s, want %s\n%s", m[1], m[2], tt.pos, got)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("load wrote into the workspace: %v", ents)
			}
			if _, err := os.Stat(home); err == nil {
				t.Errorf("load created the home %s", home)
			}
		})
	}
}
