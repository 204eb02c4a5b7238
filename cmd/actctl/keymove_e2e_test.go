package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestKeyMoved: a managed key that moves to a deeper or shallower path in
// the same file (an MCP entry mcpServers.x becomes the settings leaf
// mcpServers.x.command, and back) is actctl's own: apply takes it over,
// in JSON and in TOML, instead of a conflict saying the value is yours.
// The user's own key in the file stays, and prune leaves exactly it.
func TestKeyMoved(t *testing.T) {
	for _, tc := range []struct {
		backend, file, user, mcpKey string
		want                        []string // in the file once the leaf is applied
	}{
		{"gemini", ".gemini/settings.json", "{\n  \"theme\": \"dark\"\n}\n", "mcpServers",
			[]string{`"theme": "dark"`, `"command": "leaf"`}},
		{"codex", ".codex/config.toml", "model = \"o3\"\n", "mcp_servers",
			[]string{`model = "o3"`, `command = "leaf"`}},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
			writeFiles(t, dir, map[string]string{tc.file: tc.user})
			entry := `package actant

mcpServers: x: {command: "srv", args: ["--entry"]}
templates: t: {backend: "` + tc.backend + `", mcpServers: ["x"]}
agents: a: template: "t"
`
			leaf := `package actant

templates: t: {backend: "` + tc.backend + `", settings: "` + tc.backend + `": ` + tc.mcpKey + `: x: command: "leaf"}
agents: a: template: "t"
`
			p := filepath.Join(dir, tc.file)
			for i, cfg := range []string{entry, leaf, entry, leaf} {
				writeConfig(t, dir, cfg)
				res, r := applyJSON(t, dir, home)
				if r.Code != 0 || res.Counts.Conflicts != 0 {
					t.Fatalf("apply %d: exit %d, %d conflicts\n%s%s", i, r.Code, res.Counts.Conflicts, r.Stdout, r.Stderr)
				}
				got := read(t, p)
				isLeaf := cfg == leaf
				if strings.Contains(got, "--entry") == isLeaf || strings.Contains(got, `"leaf"`) != isLeaf || !strings.Contains(got, strings.Split(tc.want[0], " ")[0]) {
					t.Fatalf("apply %d: %s:\n%s", i, tc.file, got)
				}
				if res := mustApply(t, dir, home); res.Counts.Changed != 0 {
					t.Errorf("apply %d again changed %d files: %+v", i, res.Counts.Changed, res.Items)
				}
			}
			for _, w := range tc.want {
				if got := read(t, p); !strings.Contains(got, w) {
					t.Errorf("%s lacks %s:\n%s", tc.file, w, got)
				}
			}
			writeConfig(t, dir, "package actant\n")
			mustApply(t, dir, home)
			if got := read(t, p); got != tc.user {
				t.Errorf("after prune %s:\n got %q\nwant %q", tc.file, got, tc.user)
			}
		})
	}
}

// TestKeyMovedOverUsersKey: a key moving to a shallower path where the
// user has added a key of their own beside actctl's (mcpServers.x.mine)
// is still a conflict, named, and nothing is written.
func TestKeyMovedOverUsersKey(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, `package actant

templates: t: {backend: "gemini", settings: gemini: mcpServers: x: command: "leaf"}
agents: a: template: "t"
`)
	mustApply(t, dir, home)
	p := filepath.Join(dir, ".gemini/settings.json")
	edited := strings.Replace(read(t, p), `"command": "leaf"`, `"command": "leaf", "mine": 1`, 1)
	writeFiles(t, dir, map[string]string{".gemini/settings.json": edited})
	writeConfig(t, dir, `package actant

mcpServers: x: {command: "srv", args: []}
templates: t: {backend: "gemini", mcpServers: ["x"]}
agents: a: template: "t"
`)
	r := actctl(t, dir, home, "apply")
	if r.Code != 1 || !strings.Contains(r.Stderr, "key mcpServers.x holds a value actctl has no record of writing") {
		t.Fatalf("apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if got := read(t, p); got != edited {
		t.Errorf("the file was written:\n%s", got)
	}
}
