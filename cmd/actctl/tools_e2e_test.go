package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGetBackendsNewTools: `actctl get backends` lists GitHub Copilot and
// OpenCode with their ACP commands and instruction files.
func TestGetBackendsNewTools(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, "package actant\n")
	r := actctl(t, dir, "", "get", "backends")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, want := range []string{"copilot --acp", ".github/copilot-instructions.md", "opencode acp"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("get backends lacks %q:\n%s", want, r.Stdout)
		}
	}
}

// TestBadLayoutExtE2E: a layout's file ending that is not one (a path, no
// dot) or that a skill directory cannot take stops apply with a message
// naming it, and nothing is written.
func TestBadLayoutExtE2E(t *testing.T) {
	base := `package actant
skills: s: {description: "d", content: "c"}
commands: c: {description: "d", content: "c"}
templates: t: {backend: "copilot", skills: ["s"], commands: ["c"]}
agents: a: {template: "t"}
`
	for _, c := range []struct{ extra, msg string }{
		{`backends: copilot: files: commands: ext: "/../../x"`, "backends.copilot.files.commands.ext"},
		{`backends: copilot: files: commands: ext: "md"`, "backends.copilot.files.commands.ext"},
		{`backends: opencode: files: subAgents: ext: "a/b.md"`, "backends.opencode.files.subAgents.ext"},
		{`backends: copilot: files: skills: ext: ".md"`, `skills format skill writes <dir>/<name>/SKILL.md: ext ".md" does not apply`},
	} {
		dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
		writeConfig(t, dir, base+c.extra+"\n")
		r := actctl(t, dir, home, "apply")
		if r.Code == 0 || !strings.Contains(r.Stderr, c.msg) {
			t.Errorf("%s: exit %d, stderr:\n%s", c.extra, r.Code, r.Stderr)
		}
		if got := filesExceptMeta(t, dir); strings.Join(got, ",") != "actant.cue" {
			t.Errorf("%s: written %v", c.extra, got)
		}
	}
}
