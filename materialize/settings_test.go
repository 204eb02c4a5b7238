package materialize

import (
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestSettingsFiles: a backend may declare more than one structured
// settings file: Cursor's .cursor/hooks.json takes the top-level keys
// version and hooks, Cursor CLI's other keys go to .cursor/cli.json, and a
// key no file takes is warned about by name (issue #23 item 7); a key
// Cursor CLI ignores in .cursor/cli.json is warned about too.
func TestSettingsFiles(t *testing.T) {
	settings := map[string]any{
		"version": 1.0,
		"hooks":   map[string]any{"afterFileEdit": []any{map[string]any{"command": "./fmt.sh"}}},
		"editor":  map[string]any{"vimMode": true},
	}
	for _, c := range []struct {
		backend string
		cli     bool
	}{{"cursor", false}, {"cursor-agent", true}} {
		cfg := sampleConfig(c.backend, schema.ArchTool)
		tp := cfg.Templates["reviewer"]
		tp.Settings = map[string]map[string]any{c.backend: settings}
		cfg.Templates["reviewer"] = tp
		tg := render(t, cfg, "reviewer", Options{})
		h := tg.Find(".cursor/hooks.json")
		if h == nil || h.Mode != ModeKeys || string(h.Lookup("version")) != "1" ||
			string(h.Lookup("hooks", "afterFileEdit")) != `[{"command":"./fmt.sh"}]` || h.Lookup("editor", "vimMode") != nil {
			t.Errorf("%s hooks.json: %+v", c.backend, h)
		}
		cli := tg.Find(".cursor/cli.json")
		if got := cli != nil && string(cli.Lookup("editor", "vimMode")) == "true" && cli.Lookup("hooks", "afterFileEdit") == nil; got != c.cli {
			t.Errorf("%s cli.json: %+v", c.backend, cli)
		}
		if warned := hasWarning(tg, `backend "cursor" has no settings file for editor`); warned == c.cli {
			t.Errorf("%s warnings: %q", c.backend, tg.Warnings)
		}
		// Cursor CLI reads only permissions from the project's cli.json:
		// what else is written there is said to be ignored (issue #34 item 6).
		ignored := `settings.cursor-agent (template "reviewer"): editor are written to .cursor/cli.json, but Cursor CLI reads only permissions from a project's .cursor/cli.json`
		if warned := hasWarning(tg, ignored); warned != c.cli {
			t.Errorf("%s: ignored-keys warning %v, want %v: %q", c.backend, warned, c.cli, tg.Warnings)
		}
	}
}
