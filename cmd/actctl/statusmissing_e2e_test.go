package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestStatusNeverAppliedE2E: status of an agent never applied lists what
// apply would create, as it lists what an OutOfSync agent's apply would
// change (it said "never applied" and nothing else), in text and JSON, and
// writes nothing (issue #22 item 15).
func TestStatusNeverAppliedE2E(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	writeConfig(t, dir, `package actant
mcpServers: fs: {command: "mcp-fs"}
templates: cl: {backend: "claude-code", mcpServers: ["fs"]}
templates: cx: backend: "codex"
agents: cl: template: "cl"
agents: cx: {template: "cx", workDir: "sub"}
`)
	r := actctl(t, dir, home, "status")
	for _, want := range []string{
		"cl    Missing  -        " + dir + "      never applied; create .gitignore; create .mcp.json; create CLAUDE.md\n",
		"cx    Missing  -        " + filepath.Join(dir, "sub") + "  never applied; create sub/.gitignore; create sub/AGENTS.md\n",
	} {
		if r.Code != 0 || !strings.Contains(r.Stdout, want) {
			t.Errorf("status: exit %d, stdout lacks %q:\n%s%s", r.Code, want, r.Stdout, r.Stderr)
		}
	}
	j := actctl(t, dir, home, "status", "cl", "-o", "json")
	var sts []struct {
		Name, Status string
		Details      []string
	}
	if err := json.Unmarshal([]byte(j.Stdout), &sts); err != nil || len(sts) != 1 {
		t.Fatalf("status cl -o json: %v\n%s%s", err, j.Stdout, j.Stderr)
	}
	if want := []string{"never applied", "create .gitignore", "create .mcp.json", "create CLAUDE.md"}; sts[0].Status != "Missing" || !slices.Equal(sts[0].Details, want) {
		t.Errorf("status cl -o json: %+v, want Missing %q", sts[0], want)
	}
	if got := listFiles(t, dir); !slices.Equal(got, []string{"actant.cue"}) {
		t.Errorf("status wrote %v", got)
	}
}
