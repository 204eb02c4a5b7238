package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// renameConfig declares one Claude Code agent named name with the
// permission preset perm and an MCP server, so it manages keys in the
// user's .claude/settings.json and .mcp.json.
func renameConfig(name, perm string) string {
	return `package actant
mcpServers: filesystem: {command: "npx", args: ["-y", "server-filesystem", "."]}
templates: lead: {version: "1.0.0", backend: "claude-code", mcpServers: ["filesystem"], permissions: "` + perm + `"}
agents: "` + name + `": template: "lead"
`
}

// renameUserFiles are the user's files the renamed agent shares.
var renameUserFiles = map[string]string{
	".claude/settings.json": "{\n\t\"model\": \"opus\",\n\t\"permissions\": {\n\t\t\"allow\": [\"Bash(ls)\"]\n\t}\n}\n",
	".mcp.json":             "{\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"my-server\"}\n  }\n}\n",
}

// TestRenameTakesOverReleasedKeys: renaming an agent and changing its
// permissions in one edit is no conflict: the keys the pruned agent
// releases (permissions.defaultMode, mcpServers.filesystem) are
// actctl's, and the renamed agent takes them over in the same plan; the
// prune of the renamed agent then gives the user's files back byte for
// byte. A key the pruned agent held that was edited by hand stays a real
// conflict, and nothing is written. (issue #20 item 18)
func TestRenameTakesOverReleasedKeys(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, renameUserFiles)
	writeConfig(t, dir, renameConfig("lead", "readonly"))
	mustApply(t, dir, home)

	writeConfig(t, dir, renameConfig("boss", "permissive"))
	r := actctl(t, dir, home, "apply")
	if r.Code != 0 {
		t.Fatalf("rename and change of permissions: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	settings := read(t, filepath.Join(dir, ".claude/settings.json"))
	if !strings.Contains(settings, `"bypassPermissions"`) || strings.Contains(settings, `"plan"`) || !strings.Contains(settings, `"opus"`) {
		t.Errorf("settings after the rename:\n%s", settings)
	}
	if r := actctl(t, dir, home, "diff"); r.Code != 0 {
		t.Errorf("not converged after the rename:\n%s%s", r.Stdout, r.Stderr)
	}

	writeConfig(t, dir, "package actant\n")
	mustApply(t, dir, home)
	for n, c := range renameUserFiles {
		if got := read(t, filepath.Join(dir, n)); got != c {
			t.Errorf("%s after the prune:\n%q\nwant\n%q", n, got, c)
		}
	}
}

// TestRenameOverHandEditIsAConflict: the pruned agent's key was edited by
// hand, so it is the user's: the renamed agent's different value is a
// conflict and nothing is written.
func TestRenameOverHandEditIsAConflict(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, renameUserFiles)
	writeConfig(t, dir, renameConfig("lead", "readonly"))
	mustApply(t, dir, home)
	p := filepath.Join(dir, ".claude/settings.json")
	edited := strings.Replace(read(t, p), `"plan"`, `"acceptEdits"`, 1)
	writeFiles(t, dir, map[string]string{".claude/settings.json": edited})

	writeConfig(t, dir, renameConfig("boss", "permissive"))
	before := stamps(t, dir)
	r := actctl(t, dir, home, "apply")
	if r.Code == 0 || !strings.Contains(r.Stderr, "permissions.defaultMode") || !strings.Contains(r.Stderr, "nothing was written") {
		t.Fatalf("want a conflict on permissions.defaultMode: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Errorf("a conflict wrote:\n%s", diffStamps(before, after))
	}
	if got := read(t, p); got != edited {
		t.Errorf("settings changed:\n%s", got)
	}
}
