package materialize

import (
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestCodexRules: a Codex agent's allow/deny/ask rules about shell
// commands become prefix_rule()s in .codex/rules/actctl.rules (deny,
// ask, allow: forbidden, prompt, allow); rules Codex cannot say are
// warned about; a layout without a rules file keeps the old warning
// (issue #23 item 8).
func TestCodexRules(t *testing.T) {
	cfg := sampleConfig("codex", schema.ArchTool)
	a := cfg.Agents["reviewer"]
	a.Permissions = &schema.Permissions{
		DefaultMode: "acceptEdits",
		Allow:       []string{"Bash(go test:*)", "Bash(make *)", "Bash(ls)", "Read(src/**)"},
		Deny:        []string{"Bash(rm -rf:*)", "Bash(git push)"},
		Ask:         []string{"Bash(git commit:*)", "Bash(echo \"x\":*)", "Bash"},
	}
	cfg.Agents["reviewer"] = a
	tg := render(t, cfg, "reviewer", Options{})
	e := tg.Find(".codex/rules/actctl.rules")
	if e == nil || e.Mode != ModeFile {
		t.Fatalf("no rules file: %+v", tg.Entries)
	}
	want := `# Written by actctl for agent "reviewer" from its permissions (actant.cue); edit them there.
prefix_rule(pattern = ["rm", "-rf"], decision = "forbidden")
prefix_rule(pattern = ["git", "push"], decision = "forbidden")
prefix_rule(pattern = ["git", "commit"], decision = "prompt")
prefix_rule(pattern = ["go", "test"], decision = "allow")
prefix_rule(pattern = ["make"], decision = "allow")
`
	if string(e.Content) != want {
		t.Errorf("rules:\n%s\nwant:\n%s", e.Content, want)
	}
	for _, w := range []string{
		`permission rule "Bash(ls)" cannot be expressed for codex (an exact command would allow every command it starts`,
		`permission rule "Read(src/**)" cannot be expressed for codex (Codex rules are about shell commands`,
		`permission rule "Bash(echo \"x\":*)" cannot be expressed for codex (a wildcard or quote`,
		`permission rule "Bash" cannot be expressed for codex (a rule about every command has no prefix)`,
	} {
		if !hasWarning(tg, w) {
			t.Errorf("no warning %q in %q", w, tg.Warnings)
		}
	}
	if hasWarning(tg, "cannot be expressed for codex;") {
		t.Errorf("the old warning: %q", tg.Warnings)
	}
	// Without a rules file in the layout: nothing written, warned.
	b := cfg.Backends["codex"]
	b.Files.Permissions = &schema.PermissionsFile{Path: ".codex/config.toml", Format: schema.FormatTOML, Dialect: schema.DialectCodex}
	cfg.Backends["codex"] = b
	tg = render(t, cfg, "reviewer", Options{})
	if tg.Find(".codex/rules/actctl.rules") != nil || !hasWarning(tg, "cannot be expressed for codex without files.permissions.rules") {
		t.Errorf("no rules layout: %q", tg.Warnings)
	}
	// No rule Codex can say: no file.
	a.Permissions = &schema.Permissions{Allow: []string{"Read"}}
	cfg.Agents["reviewer"] = a
	cfg.Backends["codex"] = builtinBackends()["codex"]
	if tg = render(t, cfg, "reviewer", Options{}); tg.Find(".codex/rules/actctl.rules") != nil {
		t.Error("a rules file without rules")
	}
	if strings.Count(strings.Join(tg.Warnings, "\n"), "cannot be expressed for codex") != 1 {
		t.Errorf("warnings: %q", tg.Warnings)
	}
}
