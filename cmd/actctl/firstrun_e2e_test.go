package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFirstApplyKeepsUsersPermissions: `init && apply` in a repository
// whose tool settings already choose a permission mode succeeds on the
// first try and leaves those settings byte for byte (no permission key is
// written without a preset), for Claude Code, Codex and Gemini; a preset
// the user writes does take the keys.
func TestFirstApplyKeepsUsersPermissions(t *testing.T) {
	user := map[string]string{
		".claude/settings.json": "{\n  \"permissions\": {\"defaultMode\": \"plan\"},\n  \"model\": \"opus\"\n}\n",
		".codex/config.toml":    "sandbox_mode = \"read-only\"\napproval_policy = \"untrusted\"\n",
		".gemini/settings.json": "{\"general\": {\"defaultApprovalMode\": \"plan\"}}\n",
	}
	for _, backend := range []string{"claude-code", "codex", "gemini"} {
		t.Run(backend, func(t *testing.T) {
			dir, home := t.TempDir(), t.TempDir()
			writeFiles(t, dir, user)
			writeConfig(t, dir, "package actant\nprompts: p: content: \"Be careful.\"\ntemplates: dev: {backend: \""+backend+"\", prompts: [\"p\"]}\nagents: dev: template: \"dev\"\n")
			if r := actctl(t, dir, home, "apply"); r.Code != 0 {
				t.Fatalf("apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
			} else if strings.Contains(r.Stderr, "permission") {
				t.Errorf("apply warns about permissions nobody asked for:\n%s", r.Stderr)
			}
			for name, want := range user {
				if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
					t.Errorf("%s changed:\n%s", name, got)
				}
			}
			// A preset the user writes is theirs to ask for: it conflicts
			// with the different mode already there, and says so.
			writeConfig(t, dir, "package actant\ntemplates: dev: {backend: \""+backend+"\", permissions: \"standard\"}\nagents: dev: template: \"dev\"\n")
			if r := actctl(t, dir, home, "apply"); r.Code == 0 {
				t.Errorf("apply of a preset over the user's own mode succeeded; want a conflict\n%s", r.Stdout)
			}
		})
	}
}

// TestRunToolAndRepoAgents: tool and repo agents offer run by default
// (the README's `actctl run reviewer` and `run -t reviewer`); a mode an
// archetype leaves out is refused naming the field that allows it, and a
// template as a template.
func TestRunToolAndRepoAgents(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	writeConfig(t, root, `package actant
`+scriptedBackend(t, "")+`
templates: {
	reviewer: backend: "scripted"
	mirror: {backend: "scripted", archetype: "repo"}
	api: {backend: "scripted", archetype: "service"}
}
agents: {reviewer: template: "reviewer", mirror: template: "mirror", api: template: "api"}
`)
	for _, args := range [][]string{
		{"run", "reviewer", "-p", "hello"},
		{"run", "-t", "reviewer", "-p", "hello"},
		{"run", "mirror", "-p", "hello"},
	} {
		if r := actctl(t, root, home, args...); r.Code != 0 || !strings.Contains(r.Stdout, "Hello from the test agent") {
			t.Errorf("%v: exit %d\n%s%s", args, r.Code, r.Stdout, r.Stderr)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "api", "-p", "hello"}, `agent "api" does not offer run: its archetype "service" allows start, proxy, so it offers start, proxy; to allow run, add it to ` + "`archetypes: service: interactionModes`"},
		{[]string{"run", "-t", "api", "-p", "hello"}, `template "api" does not offer run`},
		{[]string{"chat", "-t", "api"}, `template "api" does not offer chat`},
	} {
		r := actctl(t, root, home, tt.args...)
		if r.Code == 0 || !strings.Contains(r.Stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant it to contain %q", tt.args, r.Code, r.Stderr, tt.want)
		}
	}
}
