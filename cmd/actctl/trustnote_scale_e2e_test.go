package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/benchconfig"
)

// TestTrustNoteBriefAtScale: a cold apply of 1,000 Claude Code agents,
// each writing its own .mcp.json, prints one note naming the first few
// files and how many more (it named all 1,000 on one line, 52 KB); -o
// json names every one.
func TestTrustNoteBriefAtScale(t *testing.T) {
	const n = 1000
	dir := t.TempDir()
	writeTree(t, dir, benchconfig.FilesSkills(n, 0))
	r := actctlEnv(t, dir, "", []string{"HOME=" + t.TempDir()}, "apply")
	if r.Code != 0 {
		t.Fatalf("apply: exit %d\n%.2000s", r.Code, r.Stderr)
	}
	var notes []string
	for _, l := range strings.Split(r.Stderr, "\n") {
		if strings.HasPrefix(l, "actctl: note:") {
			notes = append(notes, l)
		}
	}
	mcp := func(i int) string { return filepath.Join(dir, fmt.Sprintf("work/agent-%d/.mcp.json", i)) }
	want := fmt.Sprintf("actctl: note: Claude Code asks once to approve each MCP server in %s, %s, %s and %d more (apply -o json names every one) when you start claude there", mcp(0), mcp(1), mcp(10), n-3)
	if len(notes) != 1 || !strings.HasPrefix(notes[0], want) {
		t.Fatalf("want one note starting %q, got %d:\n%.2000s", want, len(notes), strings.Join(notes, "\n"))
	}

	// -o json names every file.
	dir = t.TempDir()
	writeTree(t, dir, benchconfig.FilesSkills(5, 0))
	res, r := applyJSON(t, dir, "")
	if r.Code != 0 || len(res.Notes) != 1 {
		t.Fatalf("apply -o json: exit %d, notes %q\n%s", r.Code, res.Notes, r.Stderr)
	}
	for i := 0; i < 5; i++ {
		if p := filepath.Join(dir, fmt.Sprintf("work/agent-%d/.mcp.json", i)); !strings.Contains(res.Notes[0], p) {
			t.Errorf("the note does not name %s: %s", p, res.Notes[0])
		}
	}
}

// TestTrustNotePerWorkspaceBrief: Codex's trust note names its workspace,
// so five Codex agents in five directories made five notes of three lines
// each (5,000 at 5,000 agents); stderr says the first and names the other
// workspaces, -o json keeps every note.
func TestTrustNotePerWorkspaceBrief(t *testing.T) {
	cfg := "package actant\ntemplates: cx: {backend: \"codex\", permissions: \"readonly\"}\n"
	files := map[string]string{}
	for i := 0; i < 5; i++ {
		cfg += fmt.Sprintf("agents: \"cx-%d\": {template: \"cx\", workDir: \"w/%d\"}\n", i, i)
		files[fmt.Sprintf("w/%d/.keep", i)] = ""
	}
	dir := t.TempDir()
	files["actant.cue"] = cfg
	writeTree(t, dir, files)
	r := actctlEnv(t, dir, "", []string{"HOME=" + t.TempDir()}, "apply")
	if r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s", r.Code, r.Stderr)
	}
	w := func(i int) string { return filepath.Join(dir, fmt.Sprintf("w/%d", i)) }
	want := fmt.Sprintf("(the same for 4 more workspaces: %s, %s, %s and 1 more; apply -o json names every one)", w(1), w(2), w(3))
	if n := strings.Count(r.Stderr, "actctl: note: Codex reads"); n != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("%d Codex notes, want one with %q:\n%s", n, want, r.Stderr)
	}

	dir = t.TempDir()
	writeTree(t, dir, files)
	res, r := applyJSON(t, dir, "")
	if r.Code != 0 || len(res.Notes) != 5 {
		t.Errorf("apply -o json: exit %d, %d notes, want 5\n%s", r.Code, len(res.Notes), r.Stderr)
	}
}
