package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue/format"
)

// TestImportFormatted: the actant.cue import writes is formatted CUE, as
// `cue fmt --simplify` leaves it (not JSON on one line), and still
// round-trips.
func TestImportFormatted(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"CLAUDE.md":             "Be brief.\n",
		".mcp.json":             `{"mcpServers": {"gh": {"command": "gh-mcp", "args": ["-y", "x"], "env": {"TOKEN": "${GH_TOKEN}"}}}}`,
		".claude/settings.json": `{"permissions": {"allow": ["Bash(ls)"]}, "model": "opus"}`,
	})
	out := roundTrip(t, dir)
	want, err := format.Source([]byte(out.Config), format.Simplify())
	if err != nil || string(want) != out.Config {
		t.Errorf("actant.cue is not formatted (%v):\n%s\nformatted:\n%s", err, out.Config, want)
	}
	for _, s := range []string{"mcpServers: gh: {\n\tcommand: \"gh-mcp\"\n\targs: [\"-y\", \"x\"]\n\tenv: TOKEN: \"${GH_TOKEN}\"\n}", `model: "opus"`} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %q:\n%s", s, out.Config)
		}
	}
}

// TestImportLeftShowsDifference: a file left because apply would not
// write it byte for byte says where it differs.
func TestImportLeftShowsDifference(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"CLAUDE.md":                 "Be brief.\n",
		".claude/skills/s/SKILL.md": "---\ndescription: >\n  folded\n---\n\nbody\n",
	})
	r := actctl(t, dir, "", "-o", "json", "import", "--dry-run")
	var out importJSON
	if err := json.Unmarshal([]byte(r.Stdout), &out); r.Code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s", r.Code, err, r.Stderr)
	}
	want := `apply sets name and description in the frontmatter its own way: line 2: yours is "description: >\n", apply writes "name: s\n"`
	if len(out.Left) != 1 || !strings.Contains(out.Left[0].Reason, want) {
		t.Errorf("left %+v, want a reason with %s", out.Left, want)
	}
}

// TestInitSuggestsImport: init in a directory that has agent files says
// that import would take them; in one without, it says nothing of it.
func TestInitSuggestsImport(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"CLAUDE.md": "Be brief.\n", ".mcp.json": "{}\n", ".cursor/rules/r.mdc": "x\n", ".windsurfrules": "x\n"})
	r := actctl(t, dir, "", "init")
	want := "actctl: note: this directory already has agent files (CLAUDE.md, .mcp.json, .cursor/rules and 1 more): `actctl import` writes an actant.cue from them instead"
	if r.Code != 0 || !strings.Contains(r.Stderr, want) {
		t.Errorf("exit %d, want %q in\n%s", r.Code, want, r.Stderr)
	}
	r = actctl(t, t.TempDir(), "", "init")
	if r.Code != 0 || strings.Contains(r.Stderr, "import") {
		t.Errorf("exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestImportQwen: Qwen Code has a built-in backend, so import reads its
// files (QWEN.md, .qwen/settings.json's servers and keys, its commands)
// instead of leaving them to no backend.
func TestImportQwen(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"QWEN.md":                "Qwen, be brief.\n",
		".qwen/settings.json":    `{"mcpServers": {"fs": {"command": "npx", "args": ["fs"]}, "web": {"httpUrl": "https://example.com/mcp"}}, "model": {"name": "qwen3-coder"}}`,
		".qwen/commands/test.md": "---\ndescription: Run the tests\n---\n\nRun them.\n",
		".qwen/agents/helper.md": "---\nname: helper\n---\nHelp.\n",
	})
	out := roundTrip(t, dir)
	got := items(out.Taken)
	for _, want := range []string{"qwen instructions qwen", "qwen mcp fs", "qwen mcp web", "qwen command test", "qwen settings model"} {
		if !slices.Contains(got, want) {
			t.Errorf("taken %q, want %q", got, want)
		}
	}
	if left := items(out.Left); !slices.Equal(left, []string{"qwen file"}) {
		t.Errorf("left %q, want only .qwen/agents", left)
	}
}

// TestImportStandardSkill: a standard SKILL.md (name and description in
// its frontmatter, the text right after it with no blank line) is taken
// as it is, and apply keeps its bytes.
func TestImportStandardSkill(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"CLAUDE.md":                    "Be brief.\n",
		".claude/skills/s/SKILL.md":    "---\nname: s\ndescription: Does s.\n---\n# S\nDo s.\n",
		".claude/skills/s/ref/more.md": "More.\n",
	})
	out := roundTrip(t, dir)
	if got := items(out.Taken); !slices.Contains(got, "claude-code skill s") {
		t.Errorf("taken %q, left %+v", got, out.Left)
	}
}

// TestImportClaudeMCPAdd: the stdio servers `claude mcp add --scope
// project` writes ("type": "stdio", "env": {}, "args": [] when none) are
// taken, and apply writes them back as they are; type "stdio" is a local
// server's only.
func TestImportClaudeMCPAdd(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"CLAUDE.md": "Be brief.\n",
		".mcp.json": `{
  "mcpServers": {
    "supabase": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@supabase/mcp-server-supabase@latest"
      ],
      "env": {}
    },
    "bare": {
      "type": "stdio",
      "command": "srv",
      "args": [],
      "env": {}
    }
  }
}
`,
	})
	out := roundTrip(t, dir)
	got := items(out.Taken)
	for _, want := range []string{"claude-code mcp supabase", "claude-code mcp bare"} {
		if !slices.Contains(got, want) {
			t.Errorf("taken %q, want %q; left %+v", got, want, out.Left)
		}
	}
	if want := `bare: {
		type:    "stdio"
		command: "srv"
		args: []
		env: {}
	}`; !strings.Contains(out.Config, want) {
		t.Errorf("actant.cue lacks %s:\n%s", want, out.Config)
	}

	dir = t.TempDir()
	writeConfig(t, dir, "package actant\nmcpServers: x: {type: \"stdio\", url: \"https://example.com/mcp\"}\ntemplates: t: {backend: \"claude-code\", mcpServers: [\"x\"]}\nagents: a: template: \"t\"\n")
	r := actctl(t, dir, "", "validate")
	if want := `mcpServers.x.type: type "stdio" is a local server's: it needs a command, not a url`; r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("exit %d, want %q in\n%s", r.Code, want, r.Stderr)
	}
}

// TestImportMarkersOnly: import puts an instruction file's text back
// exactly, between the two marker lines and with no "## <agent>" heading
// the user never wrote (heading: false), so the diff after import is the
// markers alone; a block without a heading is read back the same way.
func TestImportMarkersOnly(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"CLAUDE.md": "# Rules\n\nBe brief.\n"})
	out := roundTrip(t, dir)
	if got, want := read(t, filepath.Join(dir, "CLAUDE.md")), "<!-- BEGIN actctl agent=claude-code -->\n# Rules\n\nBe brief.\n<!-- END actctl agent=claude-code -->\n"; got != want {
		t.Errorf("CLAUDE.md after import:\n%q\nwant\n%q", got, want)
	}
	if !strings.Contains(out.Config, "heading: false") {
		t.Errorf("actant.cue lacks heading: false:\n%s", out.Config)
	}

	// The block of a workspace whose actant.cue is gone, with no heading.
	dir = t.TempDir()
	writeTree(t, dir, map[string]string{"AGENTS.md": "Mine.\n\n<!-- BEGIN actctl agent=helper -->\nHelp.\n<!-- END actctl agent=helper -->\n"})
	out = roundTrip(t, dir)
	if got := items(out.Taken); !slices.Contains(got, "codex instructions helper") || !strings.Contains(out.Config, "heading: false") {
		t.Errorf("taken %q, left %+v\n%s", got, out.Left, out.Config)
	}
}
