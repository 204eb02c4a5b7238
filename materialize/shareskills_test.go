package materialize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestShareSkills: agents of several tools in one directory, one skill:
// it is written once into each directory every reader of it reads (Codex's
// .agents/skills serves Gemini CLI and Cursor too; Claude Code's own
// directory stays), never owned twice; a copy with other content (other
// vars) is kept and warned about; an agent elsewhere keeps its own copy
// (issue #23 item 12).
func TestShareSkills(t *testing.T) {
	cfg := sampleConfig("codex", schema.ArchTool)
	base := cfg.Templates["reviewer"]
	for _, b := range []string{"gemini", "cursor-agent", "claude-code", "opencode", "pi"} {
		tp := base
		tp.Backend = b
		tp.SubAgents = nil
		cfg.Templates[b] = tp
	}
	cfg.Agents = map[string]schema.Agent{
		"a-gemini": {Template: "gemini"},
		"b-cursor": {Template: "cursor-agent"},
		"c-claude": {Template: "claude-code"},
		"d-codex":  {Template: "reviewer"},
		"e-open":   {Template: "opencode"},
		"f-pi":     {Template: "pi", Vars: map[string]string{"language": "Rust"}},
		"g-gemini": {Template: "gemini", WorkDir: "other"},
	}
	targets, diags := RenderAll(cfg, Options{})
	if errs := diags.Errors(); len(errs) > 0 {
		t.Fatalf("errors: %v", errs)
	}
	skillFiles := map[string][]string{}
	for _, tg := range targets {
		for _, e := range tg.Entries {
			if strings.Contains(e.Path, "skills/code-review/") {
				skillFiles[tg.Agent] = append(skillFiles[tg.Agent], e.Path)
			}
		}
	}
	want := map[string]string{
		"a-gemini": "",
		"b-cursor": "",
		"c-claude": ".claude/skills/code-review/SKILL.md",
		"d-codex":  ".agents/skills/code-review/SKILL.md",
		"e-open":   "", // the same path as Codex's: owned once
		"f-pi":     ".pi/skills/code-review/SKILL.md",
		"g-gemini": ".gemini/skills/code-review/SKILL.md",
	}
	for agent, w := range want {
		got := ""
		if len(skillFiles[agent]) > 0 {
			got = skillFiles[agent][0]
		}
		if got != w {
			t.Errorf("%s writes %v, want %q first", agent, skillFiles[agent], w)
		}
	}
	warned := false
	for _, d := range diags {
		if d.Warning && strings.Contains(d.Message, "the tool sees the skill twice") {
			warned = warned || d.Path == `agents."f-pi"` && strings.Contains(d.Message, `skill "code-review": agent "d-codex" writes it to .agents/skills,`)
		}
	}
	if !warned {
		t.Errorf("no warning about pi's differing copy in:\n%+v", []schema.Diagnostic(diags))
	}
}

// TestShareSkillsTwoReaders: Copilot and Goose read .agents/skills and
// .claude/skills both. Beside Codex alone, the one .agents/skills copy
// serves Copilot and Goose too (none in .github/skills); beside Codex and
// Claude Code, which read only their own directory, both copies are
// needed, and Copilot and Goose are warned that they see the skill twice
// (issue #34 item 7).
func TestShareSkillsTwoReaders(t *testing.T) {
	run := func(backends ...string) (map[string][]string, schema.Diagnostics) {
		cfg := sampleConfig("codex", schema.ArchTool)
		base := cfg.Templates["reviewer"]
		cfg.Agents = map[string]schema.Agent{}
		for _, b := range backends {
			tp := base
			tp.Backend, tp.SubAgents = b, nil
			cfg.Templates[b] = tp
			cfg.Agents["a-"+b] = schema.Agent{Template: b}
		}
		targets, diags := RenderAll(cfg, Options{})
		if errs := diags.Errors(); len(errs) > 0 {
			t.Fatalf("errors: %v", errs)
		}
		files := map[string][]string{}
		for _, tg := range targets {
			for _, e := range tg.Entries {
				if strings.HasSuffix(e.Path, "skills/code-review/SKILL.md") {
					files[tg.Agent] = append(files[tg.Agent], e.Path)
				}
			}
		}
		return files, diags
	}
	twice := func(diags schema.Diagnostics) []string {
		var out []string
		for _, d := range diags {
			if d.Warning && strings.HasPrefix(d.Message, `skill "code-review"`) && strings.Contains(d.Message, "the tool sees the skill twice") {
				out = append(out, d.Path)
			}
		}
		return out
	}
	files, diags := run("codex", "copilot", "goose")
	if got := fmt.Sprint(files); got != "map[a-codex:[.agents/skills/code-review/SKILL.md]]" || len(twice(diags)) > 0 {
		t.Errorf("codex, copilot, goose: %s %v", got, twice(diags))
	}
	files, diags = run("codex", "copilot", "goose", "claude-code")
	if got := fmt.Sprint(files); got != "map[a-claude-code:[.claude/skills/code-review/SKILL.md] a-codex:[.agents/skills/code-review/SKILL.md]]" {
		t.Errorf("with claude-code: %s", got)
	}
	if got := fmt.Sprint(twice(diags)); got != `[agents."a-copilot" agents."a-goose"]` {
		t.Errorf("twice warnings: %s in %+v", got, []schema.Diagnostic(diags))
	}
}
