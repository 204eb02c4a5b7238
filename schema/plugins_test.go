package schema

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const pluginsBase = `package actant
templates: dev: {backend: "claude-code", plugins: ["to-english", "rules"]}
templates: translator: {backend: "claude-code", plugins: []}
agents: developer: template: "dev"
agents: tr: template: "translator"
plugins: "to-english": {kind: "agent", agent: "tr", prompt: "translate en {{text}}"}
plugins: rules: {kind: "prefix", text: "Team rules"}
`

// TestPluginsValid: the plugins load with their defaults, a template's
// list is the agent's, and an archetype's list is the default of the
// templates that give none (docs/plugins.md).
func TestPluginsValid(t *testing.T) {
	cfg := mustLoad(t, map[string]string{"actant.cue": pluginsBase + `
plugins: secrets: {kind: "redact", patterns: ["tok-[0-9]+"]}
archetypes: tool: plugins: ["secrets"]
templates: plain: backend: "claude-code"
agents: p: template: "plain"
`})
	for agent, want := range map[string][]string{"developer": {"to-english", "rules"}, "tr": {}, "p": {"secrets"}} {
		r, err := cfg.Resolve(agent)
		if err != nil {
			t.Fatal(err)
		}
		if got := PluginsOf(r); !slices.Equal(got, want) {
			t.Errorf("%s's plugins: %q, want %q", agent, got, want)
		}
	}
	b := cfg.Plugins["to-english"].Bounds()
	if b.Timeout != 2*time.Minute || b.Budget != DefaultPluginBudget || b.Stream != StreamMessage || b.Preset != PresetReadonly || b.Inject != InjectReplace || b.Fail {
		t.Errorf("agent plugin's bounds %+v", b)
	}
	if b := cfg.Plugins["secrets"].Bounds(); b.Budget != 0 || b.Stream != StreamChunk || !cfg.Plugins["secrets"].Outbound() || !cfg.Plugins["secrets"].Inbound() {
		t.Errorf("redact's bounds %+v", b)
	}
}

// TestPluginsInvalid: every problem is an error at its field.
func TestPluginsInvalid(t *testing.T) {
	for _, tc := range []struct{ extra, want string }{
		{`templates: x: {backend: "claude-code", plugins: ["rulse"]}`,
			`actant.cue:8:50: templates.x.plugins[0]: unknown plugin "rulse" (did you mean "rules"?)`},
		{`archetypes: tool: plugins: ["to-englsh"]`,
			`archetypes.tool.plugins[0]: unknown plugin "to-englsh" (did you mean "to-english"?)`},
		{`plugins: self: {kind: "agent", agent: "selfish"}
templates: selfish: {backend: "claude-code", plugins: ["self"]}`,
			`plugins.self.agent: plugin "self" asks "selfish", whose own plugins include "self": it would ask itself`},
		{`plugins: p: {kind: "agent", agent: "tarnslator"}`,
			`plugins.p.agent: unknown agent or template "tarnslator" (did you mean "translator"?)`},
		{`plugins: r: {kind: "redact", patterns: ["ok", "(unclosed"]}`,
			"actant.cue:8:47: plugins.r.patterns[1]: pattern \"(unclosed\": error parsing regexp: missing closing ): `(unclosed`"},
		{`plugins: r: {kind: "prefix", text: "x", on: "outbound"}`,
			`plugins.r.on: prefix adds text to the prompt: it is inbound only`},
		{`plugins: r: {kind: "prefix", patterns: ["x"]}`,
			`plugins.r.patterns: patterns is for a plugin of kind redact, not prefix`},
		{`plugins: r: {kind: "command"}`,
			`plugins.r: a plugin of kind command needs command`},
		{`plugins: r: {kind: "command", command: "x", timeout: "0s"}`,
			`plugins.r.timeout: timeout "0s": want a positive duration`},
		{`plugins: r: {kind: "command", command: "x", on: "outbound", inject: "context"}`,
			`plugins.r.inject: inject is for a plugin of kind agent, not command`},
		{`templates: x: {backend: "claude-code", plugins: ["rules", "rules"]}`,
			`templates.x.plugins[1]: plugin "rules" is listed twice`},
	} {
		dir := writeWorkspace(t, map[string]string{"actant.cue": pluginsBase + tc.extra + "\n"})
		_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
		var ds Diagnostics
		if !errors.As(err, &ds) {
			t.Errorf("%s: err = %v, want diagnostics", tc.extra, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\ngot  %v\nwant %s", tc.extra, err, tc.want)
		}
	}
}
