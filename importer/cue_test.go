package importer

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestConfigKeepsText: the actant.cue import writes gives CUE back every
// prompt, command, server and setting exactly as read, whatever the text
// holds (CUE's own escapes, interpolation, quotes, blank lines with
// spaces, tabs, other scripts, control characters). Text that is not
// UTF-8, which a CUE string cannot hold, is refused before (TestWrapRefuses).
func TestConfigKeepsText(t *testing.T) {
	texts := []string{
		"plain",
		"tabs\tand  trailing spaces  \n\n   \nafter a line of spaces",
		`back\slash \( interp \(x) "quotes" """ triple #""" and "#`,
		"lone \r carriage return and \x01 control and \u00e9\u4e2d\U0001F600",
		"{{var}} and ${VAR} and $(cmd)",
	}
	for _, text := range texts {
		root := t.TempDir()
		p := &Plan{root: root, skills: map[string]*skillSrc{}, commands: map[string]*commandSrc{}, mcp: map[string]*mcpSrc{}}
		p.commands["c"] = &commandSrc{}
		p.commands["c"].c.Description, p.commands["c"].c.Content = text, text
		p.mcp["m"] = &mcpSrc{}
		p.mcp["m"].s.Command, p.mcp["m"].s.Env = text, map[string]string{"K": text}
		a := &agent{name: "claude-code", b: Backends[0], prompt: text, commands: []string{"c"}, mcp: []string{"m"}, settings: map[string]any{"k": text}}
		p.agents = []*agent{a}
		if err := os.WriteFile(filepath.Join(root, schema.FileName), p.render(), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := schema.LoadDir(root, t.TempDir())
		if err != nil {
			t.Fatalf("%q: %v\n%s", text, err, p.render())
		}
		got := map[string]string{
			"prompt":      cfg.Prompts["claude-code"].Content,
			"command":     cfg.Commands["c"].Content,
			"description": cfg.Commands["c"].Description,
			"server":      cfg.MCPServers["m"].Command,
			"env":         cfg.MCPServers["m"].Env["K"],
			"setting":     cfg.Templates["claude-code"].Settings["claude-code"]["k"].(string),
		}
		for what, g := range got {
			if g != text {
				t.Errorf("%s: %q, want %q", what, g, text)
			}
		}
	}
}
