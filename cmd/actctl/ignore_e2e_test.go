package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// ignoreWorkspace has one ignore list and, with agents, a Cursor, a
// Claude Code and a Codex agent that use it, each in its own directory.
func ignoreWorkspace(withAgents bool) string {
	cfg := `package actant
ignore: secrets: patterns: [".env", "secrets/", "*.pem"]
templates: {
	cur: {backend: "cursor", ignore: ["secrets"]}
	cc: {backend: "claude-code", ignore: ["secrets"]}
	cx: {backend: "codex", ignore: ["secrets"]}
}
`
	if withAgents {
		cfg += `agents: {
	cur: {template: "cur", workDir: "cur"}
	cc: {template: "cc", workDir: "cc"}
	cx: {template: "cx", workDir: "cx"}
}
`
	}
	return cfg
}

// TestIgnoreE2E: an ignore list reaches Cursor as a block in the user's
// .cursorignore (their lines stay) and Claude Code as Read() deny rules
// beside the user's settings; Codex, which has no ignore file, gets a
// warning and nothing. Re-apply writes nothing; prune gives the user's
// bytes back.
func TestIgnoreE2E(t *testing.T) {
	user := map[string]string{
		"cur/.cursorignore":          "# mine\nnode_modules/\n",
		"cc/.claude/settings.json":   "{\n  \"theme\": \"dark\"\n}\n",
		"cx/.codex/config.toml":      "model = \"gpt-5\"\n",
		"cx/.codex/prompts/keep.txt": "x\n",
	}
	runArtifact(t, artifactCase{
		user:    user,
		with:    ignoreWorkspace(true),
		without: ignoreWorkspace(false),
		check: func(t *testing.T, dir string, r result) {
			cur := read(t, filepath.Join(dir, "cur/.cursorignore"))
			if !strings.HasPrefix(cur, user["cur/.cursorignore"]) || !strings.Contains(cur, "# BEGIN actctl agent=cur") || !strings.Contains(cur, "\n.env\nsecrets/\n*.pem\n") {
				t.Errorf(".cursorignore:\n%s", cur)
			}
			var cc struct {
				Theme       string `json:"theme"`
				Permissions struct {
					Deny []string `json:"deny"`
				} `json:"permissions"`
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, "cc/.claude/settings.json"))), &cc); err != nil {
				t.Fatal(err)
			}
			if cc.Theme != "dark" || !slices.Equal(cc.Permissions.Deny, []string{"Read(.env)", "Read(secrets/)", "Read(*.pem)"}) {
				t.Errorf("claude settings: %+v", cc)
			}
			if !strings.Contains(r.Stdout, `backend \"codex\" has no ignore file: ignore secrets of template \"cx\" are not written`) {
				t.Errorf("no warning for codex:\n%s", r.Stdout)
			}
			if got := listFiles(t, filepath.Join(dir, "cx")); slices.ContainsFunc(got, func(f string) bool { return strings.Contains(f, "ignore") && f != ".gitignore" }) {
				t.Errorf("codex got an ignore file: %v", got)
			}
		},
	})
}

// TestIgnoreBadInputE2E: a pattern that is not one line, an undeclared
// list or a hub reference stops apply with a message naming it, and
// nothing is written.
func TestIgnoreBadInputE2E(t *testing.T) {
	for _, c := range []struct{ cfg, msg string }{
		{`ignore: secrets: patterns: ["a\nb"]
templates: t: {backend: "cursor", ignore: ["secrets"]}`, `ignore list "secrets": pattern "a\nb" is not one line`},
		{`ignore: secrets: patterns: [".env"]
templates: t: {backend: "cursor", ignore: ["secrts"]}`, `unknown ignore list "secrts" (did you mean "secrets"?)`},
		{`hub: h: url: "https://example.invalid/h.git"
templates: t: {backend: "cursor", ignore: ["h@secrets"]}`, `ignore "h@secrets": hub sources carry no ignore lists`},
	} {
		dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
		writeConfig(t, dir, "package actant\n"+c.cfg+"\nagents: a: template: \"t\"\n")
		r := actctl(t, dir, home, "apply")
		if r.Code == 0 || !strings.Contains(r.Stderr, c.msg) {
			t.Errorf("%s: exit %d, want the message %q:\n%s", c.cfg, r.Code, c.msg, r.Stderr)
		}
		if got := listFiles(t, dir); !slices.Equal(got, []string{"actant.cue"}) {
			t.Errorf("%s: files written: %v", c.cfg, got)
		}
	}
}
