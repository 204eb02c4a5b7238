package materialize

import (
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestSharedInstructions: agents whose permissions differ and whose
// blocks go into one instruction file are warned once, at the later
// agent, with the way to keep them apart; the same permissions, another
// directory or another file say nothing (issue #34 item 15).
func TestSharedInstructions(t *testing.T) {
	readonly := schema.Permissions{Preset: schema.PresetReadonly}
	permissive := schema.Permissions{Preset: schema.PresetPermissive}
	rules := schema.Permissions{Allow: []string{"Bash(go test:*)"}}
	type ag struct {
		backend string
		perms   schema.Permissions
		workDir string
	}
	cases := []struct {
		name   string
		agents map[string]ag
		want   string // "" for no warning; else a substring at agents.<second>
		at     string
	}{
		{"readonly codex and permissive cursor", map[string]ag{"dev": {"cursor-agent", permissive, ""}, "rev": {"codex", readonly, ""}},
			`AGENTS.md is shared by agents "dev" (permissions: permissive) and "rev" (permissions: readonly)`, "agents.rev"},
		{"explicit rules beside the default", map[string]ag{"a": {"opencode", schema.Permissions{}, ""}, "b": {"codex", rules, ""}},
			`(permissions: standard) and "b" (permissions: rules {"allow":["Bash(go test:*)"]})`, "agents.b"},
		{"codex and gemini write different files", map[string]ag{"w": {"codex", readonly, ""}, "x": {"gemini", permissive, ""}}, "", ""},
		{"same preset", map[string]ag{"a": {"codex", readonly, ""}, "b": {"cursor-agent", readonly, ""}}, "", ""},
		{"another directory", map[string]ag{"a": {"codex", readonly, ""}, "b": {"cursor-agent", permissive, "other"}}, "", ""},
		{"another file", map[string]ag{"a": {"claude-code", readonly, ""}, "b": {"codex", permissive, ""}}, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := sampleConfig("codex", schema.ArchTool)
			base := cfg.Templates["reviewer"]
			cfg.Agents = map[string]schema.Agent{}
			for name, a := range c.agents {
				tp := base
				tp.Backend, tp.Permissions, tp.SubAgents, tp.Settings = a.backend, a.perms, nil, nil
				cfg.Templates[name] = tp
				cfg.Agents[name] = schema.Agent{Template: name, WorkDir: a.workDir}
			}
			_, diags := RenderAll(cfg, Options{})
			if errs := diags.Errors(); len(errs) > 0 {
				t.Fatalf("errors: %v", errs)
			}
			var got []schema.Diagnostic
			for _, d := range diags {
				if d.Warning && strings.Contains(d.Message, "is shared by agents") {
					got = append(got, d)
				}
			}
			switch {
			case c.want == "" && len(got) > 0:
				t.Errorf("unexpected warning: %+v", got)
			case c.want != "" && (len(got) != 1 || got[0].Path != c.at || !strings.Contains(got[0].Message, c.want) ||
				!strings.Contains(got[0].Message, "give "+c.at+".workDir a directory of its own")):
				t.Errorf("want one warning at %s containing %q, got %+v", c.at, c.want, got)
			}
		})
	}
}
