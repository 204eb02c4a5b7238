package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/importer"
	"github.com/actctl/actctl/reconcile"
)

// importJSON is the part of `import -o json` the tests read (docs/json.md).
type importJSON struct {
	Agents []string          `json:"agents"`
	Taken  []importer.Item   `json:"taken"`
	Left   []importer.Item   `json:"left"`
	Edits  []importer.Edit   `json:"edits"`
	Moves  []importer.Move   `json:"moves"`
	Notes  []string          `json:"notes"`
	Config string            `json:"config"`
	Apply  *reconcile.Result `json:"apply"`
	DryRun bool              `json:"dryRun"`
}

// readTree returns every file under dir (slash paths) with its bytes.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return nil // a link to a directory: its files are read where they are
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeTree writes files (slash paths) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// otherBlockRe is a block apply appended (with the one line ending it put
// before it).
var otherBlockRe = regexp.MustCompile(`(?s)\r?\n<!-- BEGIN actctl agent=(\S+) -->\r?\n.*?<!-- END actctl agent=\S+ -->\r?\n`)

// unwrap removes from an instruction file the blocks apply appended for
// other agents, then the two marker lines import put around agent's text
// (its text goes back exactly, with no heading: docs/import.md).
func unwrap(content, agent string) string {
	content = otherBlockRe.ReplaceAllStringFunc(content, func(b string) string {
		if otherBlockRe.FindStringSubmatch(b)[1] == agent {
			return b
		}
		return ""
	})
	q := regexp.QuoteMeta(agent)
	re := regexp.MustCompile(`(?m)^<!-- BEGIN actctl agent=` + q + ` -->\r?\n|^<!-- END actctl agent=` + q + ` -->\r?\n`)
	return re.ReplaceAllString(content, "")
}

// keptEveryByte checks that after import every file of orig is where it
// was with the same bytes, moved (--move) with the same bytes, or an
// instruction file whose text is in its block with nothing lost.
func keptEveryByte(t *testing.T, dir string, orig map[string]string, out importJSON) {
	t.Helper()
	now := readTree(t, dir)
	real := func(rel string) string {
		r, err := filepath.EvalSymlinks(filepath.Join(dir, rel))
		if err != nil {
			return rel
		}
		return r
	}
	edited := map[string]string{} // by real path: a link and its target are one file
	for _, e := range out.Edits {
		edited[real(e.Path)] = e.Agent
	}
	for rel, want := range orig {
		for _, m := range out.Moves {
			if strings.HasPrefix(rel, m.From+"/") {
				rel = m.To + strings.TrimPrefix(rel, m.From)
			}
		}
		got, ok := now[rel]
		switch {
		case !ok:
			t.Errorf("%s is gone after import", rel)
		case edited[real(rel)] != "":
			switch {
			case strings.HasSuffix(want, "\n"):
			case strings.Contains(want, "\r\n"):
				want += "\r\n" // the END line ends the file
			default:
				want += "\n"
			}
			if un := unwrap(got, edited[real(rel)]); un != want {
				t.Errorf("%s: the text inside its block is not the original:\n got %q\nwant %q", rel, un, want)
			}
		case got != want:
			t.Errorf("%s changed on import:\n got %q\nwant %q", rel, got, want)
		}
	}
}

// items lists "kind name" of each item.
func items(its []importer.Item) []string {
	out := []string{}
	for _, it := range its {
		out = append(out, strings.TrimSpace(it.Backend+" "+it.Kind+" "+it.Name))
	}
	slices.Sort(out)
	return out
}

// roundTrip imports dir, checks that nothing was lost, then that apply
// writes nothing and diff finds nothing. It returns the import's output.
func roundTrip(t *testing.T, dir string, args ...string) importJSON {
	t.Helper()
	home := filepath.Join(t.TempDir(), "home")
	orig := readTree(t, dir)
	r := actctl(t, dir, home, append([]string{"-o", "json", "import"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("import: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	var out importJSON
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("import -o json: %v\n%s", err, r.Stdout)
	}
	for _, it := range out.Left {
		if it.Reason == "" {
			t.Errorf("left without a reason: %+v", it)
		}
	}
	keptEveryByte(t, dir, orig, out)
	before := stamps(t, dir)
	res := mustApply(t, dir, home)
	if res.Counts.Changed != 0 || len(res.Items) != 0 {
		t.Errorf("apply after import: %+v %+v", res.Counts, res.Items)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Errorf("apply after import wrote:\n%s", diffStamps(before, after))
	}
	if d := actctl(t, dir, home, "diff"); d.Code != 0 {
		t.Errorf("diff after import: exit %d\n%s\n%s", d.Code, d.Stdout, d.Stderr)
	}
	return out
}

// TestImportRoundTrip imports real repositories' agent files (fixtures in
// importer/testdata/repos, sources and licences in its README) and this
// repository's own: apply then writes nothing and diff exits 0, every
// byte of the files is kept, and what import could not take is listed.
func TestImportRoundTrip(t *testing.T) {
	own := t.TempDir()
	for _, f := range []string{"CLAUDE.md", "AGENTS.md", ".claude", ".agents", ".codex"} {
		copyInto(t, filepath.Join("..", "..", f), filepath.Join(own, f))
	}
	cases := []struct {
		name, src   string
		move        bool
		taken, left []string
	}{
		{"mcp-typescript-sdk", "", false, []string{"claude-code instructions claude-code"}, []string{}},
		{"playwright-mcp", "", false, []string{"claude-code instructions claude-code"}, []string{"claude-code skill release.md"}},
		// Standard SKILL.md files (name and description in the frontmatter)
		// are taken as they are, --move or not.
		{"posthog", "", false, []string{"claude-code mcp phrocs", "claude-code settings hooks", "claude-code skill hogli"}, []string{}},
		{"posthog", "", true, []string{"claude-code mcp phrocs", "claude-code settings hooks", "claude-code skill hogli"}, []string{}},
		{"gemini-cli", "", false, []string{"gemini instructions gemini", "gemini settings experimental", "gemini settings general", "gemini skill code-reviewer", "gemini skill docs-changelog"}, []string{}},
		{"gemini-cli", "", true, []string{"gemini instructions gemini", "gemini settings experimental", "gemini settings general", "gemini skill code-reviewer", "gemini skill docs-changelog"}, []string{}},
		{"actctl", own, false, []string{"claude-code instructions maintainer", "claude-code permissions", "claude-code skill actctl-dev", "codex instructions maintainer-codex", "codex permissions", "codex skill actctl-dev"}, []string{}},
	}
	for _, c := range cases {
		name := c.name
		if c.move {
			name += "/move"
		}
		t.Run(name, func(t *testing.T) {
			src := c.src
			if src == "" {
				src = filepath.Join("..", "..", "importer", "testdata", "repos", c.name)
			}
			dir := t.TempDir()
			copyInto(t, src, dir)
			var args []string
			if c.move {
				args = append(args, "--move")
			}
			out := roundTrip(t, dir, args...)
			want := append([]string{}, c.taken...)
			slices.Sort(want)
			if got := items(out.Taken); !slices.Equal(got, want) {
				t.Errorf("taken %q, want %q", got, want)
			}
			want = append([]string{}, c.left...)
			slices.Sort(want)
			if got := items(out.Left); !slices.Equal(got, want) {
				t.Errorf("left %q, want %q", got, want)
			}
		})
	}
}

// copyInto copies the directory or file src to dst.
func copyInto(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImportRefuses checks the inputs import refuses for their bytes: the
// message, and that nothing was written (not even .actant/). The others
// are scripts, testdata/script/import_refused_*.txtar; these two stay
// here, where their bytes (Latin-1, CRLF) cannot be changed by an editor.
func TestImportRefuses(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		args  []string
		code  int
		msg   string
	}{
		{"not UTF-8", map[string]string{"CLAUDE.md": "caf\xe9\n"}, nil, 1, "CLAUDE.md: is not UTF-8 text, which actant.cue cannot hold byte for byte; backend claude-code not imported"},
		{"mixed line endings", map[string]string{"GEMINI.md": "a\r\nb\n"}, nil, 1, "GEMINI.md: mixes CRLF and LF line endings"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, c.files)
			before, orig := stamps(t, dir), readTree(t, dir)
			r := actctl(t, dir, "", append([]string{"import"}, c.args...)...)
			if r.Code != c.code || !strings.Contains(r.Stderr, c.msg) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", r.Code, r.Stderr, c.code, c.msg)
			}
			if after := stamps(t, dir); !equalStamps(before, after) {
				t.Errorf("a refused import wrote:\n%s", diffStamps(before, after))
			}
			if now := readTree(t, dir); !maps.Equal(now, orig) {
				t.Errorf("files changed: %v", now)
			}
		})
	}
}

// import --dry-run is testdata/script/import_dry_run.txtar.

// TestImportLeaves imports a repository with a bit of everything import
// cannot take as it is: each is listed with its reason, the rest round
// trips, and ${VAR} references stay references.
func TestImportLeaves(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"AGENTS.md": "\r\n# Agents\r\n\r\nUse tabs.", // CRLF, a leading blank line, no final newline
		".mcp.json": `{"mcpServers": {
  "ok": {"command": "srv", "args": ["--port", "1"], "env": {"KEY": "${API_KEY}"}},
  "odd": {"command": "srv", "timeout": 5},
  "Bad Name": {"command": "srv"},
  "remote": {"type": "sse", "url": "https://example.com/mcp"}
}, "other": true}
`,
		".claude/settings.json":             `{"permissions": {"allow": ["Bash(ls)"], "deny": [], "disableBypassPermissionsMode": "disable"}, "model": "opus", "env": {"": "x"}}`,
		".claude/skills/Bad Skill/SKILL.md": "---\nname: x\ndescription: y\n---\nz\n",
		".claude/skills/fine/SKILL.md":      "---\nname: fine\ndescription: A fine skill\n---\n\nDo it.\n",
		".claude/agents/helper.md":          "---\nname: helper\n---\nhelp\n",
		".cursor/mcp.json":                  `{"mcpServers": {"gh": {"url": "https://api.github.com/mcp", "headers": {"Authorization": "Bearer ${env:GH_TOKEN}"}}}}`,
		".agents/skills/fine/SKILL.md":      "---\nname: fine\ndescription: Another fine skill\n---\n\nDo it.\n",
		".github/copilot-instructions.md":   "Copilot, be brief.\n",
		// The same servers in OpenCode's and VS Code's shapes: shared.
		"opencode.json":    `{"$schema": "https://opencode.ai/config.json", "mcp": {"gh": {"type": "remote", "url": "https://api.github.com/mcp", "headers": {"Authorization": "Bearer {env:GH_TOKEN}"}, "enabled": true}, "ok": {"type": "local", "command": ["srv", "--port", "1"], "environment": {"KEY": "{env:API_KEY}"}, "enabled": true}}}`,
		".vscode/mcp.json": `{"servers": {"gh": {"type": "http", "url": "https://api.github.com/mcp", "headers": {"Authorization": "Bearer ${env:GH_TOKEN}"}}}, "inputs": []}`,
		".codex/config.toml": "model = \"o3\"\nsandbox_mode = \"danger-full-access\"\n\n[mcp_servers.ok]\ncommand = \"srv\"\nargs = [\"--port\", \"1\"]\n\n[mcp_servers.ok.env]\nKEY = \"${API_KEY}\"\n" +
			// Codex's own ways to take ${VAR}: read back as ${VAR}; gh is
			// the same server as Cursor's, so both agents share it.
			"\n[mcp_servers.envs]\ncommand = \"srv\"\nenv_vars = [\"API_KEY\"]\n\n[mcp_servers.gh]\nurl = \"https://api.github.com/mcp\"\nbearer_token_env_var = \"GH_TOKEN\"\n",
	})
	linked := filepath.Join(dir, ".claude/skills/linked")
	writeTree(t, linked, map[string]string{"SKILL.md": "---\nname: linked\ndescription: Linked\n---\n\nBody\n"})
	if err := os.Symlink("SKILL.md", filepath.Join(linked, "again.md")); err != nil {
		t.Fatal(err)
	}
	out := roundTrip(t, dir)
	wantTaken := []string{
		"claude-code mcp ok", "claude-code permissions", "claude-code settings model", "claude-code settings permissions",
		"claude-code skill fine", "codex instructions codex", "codex mcp envs", "codex mcp gh", "codex settings model", "codex settings sandbox_mode", "cursor mcp gh",
		"copilot instructions copilot", "copilot mcp gh", "opencode mcp gh", "opencode mcp ok", "opencode settings $schema",
	}
	wantLeft := []string{
		"claude-code sub-agent helper", "claude-code mcp Bad Name", "claude-code mcp odd", "claude-code mcp other", "claude-code mcp remote",
		"copilot mcp inputs", "claude-code settings env", "claude-code skill Bad Skill", "claude-code skill linked", "codex mcp ok", "codex skill fine",
	}
	slices.Sort(wantTaken)
	slices.Sort(wantLeft)
	if got := items(out.Taken); !slices.Equal(got, wantTaken) {
		t.Errorf("taken %q\nwant  %q", got, wantTaken)
	}
	if got := items(out.Left); !slices.Equal(got, wantLeft) {
		t.Errorf("left %q\nwant %q", got, wantLeft)
	}
	for _, s := range []string{`Authorization: "Bearer ${GH_TOKEN}"`, `KEY: "${API_KEY}"`} {
		if !strings.Contains(out.Config, s) {
			t.Errorf("actant.cue lacks %s:\n%s", s, out.Config)
		}
	}
}

// TestImportLinkAndComments: CLAUDE.md as a link to AGENTS.md (a common
// way to share one text) gives the text to the first agent and keeps the
// link; JSON with comments and trailing commas (which apply edits) is
// read.
func TestImportLinkAndComments(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"AGENTS.md":                  "# Shared\n\nOne text for every tool.\n",
		".mcp.json":                  "{\n  // my servers\n  \"mcpServers\": {\n    \"mine\": {\"command\": \"my-server\",},\n  },\n}\n",
		".codex/config.toml":         "approval_policy = \"never\"\nsandbox_mode = \"read-only\"\n",
		".agents/skills/x/SKILL.md":  "---\nname: x\ndescription: X\n---\n\nBody\n",
		".claude/commands/review.md": "Review it.\n",
	})
	// Files shared between tools through links: each is taken once.
	for link, target := range map[string]string{
		"CLAUDE.md":        "AGENTS.md",
		".claude/skills":   "../.agents/skills",
		".cursor/commands": "../.claude/commands",
		".cursor/mcp.json": "../.mcp.json",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755)
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skip("no symlinks here:", err)
		}
	}
	out := roundTrip(t, dir)
	want := []string{"claude-code command review", "claude-code instructions claude-code", "claude-code mcp mine", "claude-code skill x", "codex permissions"}
	if got := items(out.Taken); !slices.Equal(got, want) {
		t.Errorf("taken %q, want %q", got, want)
	}
	want = []string{"codex skill x", "cursor command review", "cursor mcp"}
	if got := items(out.Left); !slices.Equal(got, want) {
		t.Errorf("left %q, want %q", got, want)
	}
	for _, it := range out.Left {
		if !strings.Contains(it.Reason, "through a link") {
			t.Errorf("%s: %s", it.Path, it.Reason)
		}
	}
	if fi, err := os.Lstat(filepath.Join(dir, "CLAUDE.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("CLAUDE.md is no longer a link: %v %v", fi, err)
	}
	if !strings.Contains(out.Config, `defaultMode: "dontAsk"`) {
		t.Errorf("codex's read-only, never-ask keys are not read as dontAsk:\n%s", out.Config)
	}
}

// TestImportCommands: slash commands apply writes as they are become
// commands (Claude Code Markdown with a description, Cursor's plain
// Markdown, Gemini CLI's TOML); the rest is left with the reason.
func TestImportCommands(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		".claude/commands/review.md":       "---\ndescription: Review the diff\n---\n\nReview $ARGUMENTS carefully.\n",
		".claude/commands/plain.md":        "Just do it.\n",
		".github/prompts/review.prompt.md": "---\ndescription: Review the diff\n---\n\nReview $ARGUMENTS carefully.\n",
		".claude/commands/tools.md":        "---\nallowed-tools: Bash(git:*)\ndescription: Commit\n---\n\nCommit.\n",
		".claude/commands/ns/deep.md":      "Namespaced.\n",
		".cursor/commands/review.md":       "Review $ARGUMENTS carefully.\n",
		".gemini/commands/summarize.toml":  "description = 'Summarize'\nprompt = \"\"\"\nSummarize {{args}}.\n\"\"\"\n",
		".gemini/commands/quoted.toml":     "description = \"Quoted\"\nprompt = \"Quote.\\n\"\n", // apply would write 'Quoted' and a multi-line prompt
		".gemini/commands/odd.toml":        "prompt = \"x\"\nmodel = \"flash\"\n",
	})
	out := roundTrip(t, dir)
	taken := []string{"claude-code command plain", "claude-code command review", "copilot command review", "gemini command summarize"}
	left := []string{"claude-code command ns", "claude-code command tools", "cursor command review", "gemini command odd", "gemini command quoted"}
	slices.Sort(taken)
	if got := items(out.Taken); !slices.Equal(got, taken) {
		t.Errorf("taken %q\nwant  %q", got, taken)
	}
	if got := items(out.Left); !slices.Equal(got, left) {
		t.Errorf("left %q\nwant %q", got, left)
	}
}

// TestImportPiAntigravity: the other built-in backends that read
// AGENTS.md, Pi (prompt templates as commands, settings) and Antigravity
// (its MCP file, remote servers under serverUrl).
func TestImportPiAntigravity(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"AGENTS.md":               "Shared text.\n",
		".pi/prompts/fix.md":      "---\ndescription: Fix it\n---\n\nFix $1.\n",
		".pi/settings.json":       `{"theme": "dark"}`,
		".agents/mcp_config.json": `{"mcpServers": {"remote": {"serverUrl": "https://example.com/mcp"}}}`,
	})
	out := roundTrip(t, dir)
	want := []string{"antigravity mcp remote", "pi command fix", "pi instructions pi", "pi settings theme"}
	if got := items(out.Taken); !slices.Equal(got, want) {
		t.Errorf("taken %q, want %q", got, want)
	}
	if !slices.Equal(out.Agents, []string{"pi", "antigravity"}) {
		t.Errorf("agents %q", out.Agents)
	}
}

// TestImportedIsActctls: after import, the adopted content is actctl's:
// a change of the imported prompt, server or setting in actant.cue is
// applied (no drift, no conflict), and a hand edit is drift like any.
func TestImportedIsActctls(t *testing.T) {
	dir := t.TempDir()
	copyInto(t, filepath.Join("..", "..", "importer", "testdata", "repos", "posthog"), dir)
	writeTree(t, dir, map[string]string{"CLAUDE.md": "# PostHog\n\nUse hogli.\n"})
	home := filepath.Join(t.TempDir(), "home")
	if r := actctl(t, dir, home, "import"); r.Code != 0 {
		t.Fatalf("import: %d\n%s", r.Code, r.Stderr)
	}
	cfg := read(t, filepath.Join(dir, "actant.cue"))
	cfg = strings.Replace(cfg, "Use hogli.", "Use hogli, always.", 1)
	cfg = strings.Replace(cfg, `"tools/phrocs/mcp_server.py"`, `"tools/phrocs/server.py"`, 1)
	writeConfig(t, dir, cfg)
	res := mustApply(t, dir, home)
	if res.Counts.Updated != 2 || res.Counts.Drifted+res.Counts.Conflicts+res.Counts.Skipped != 0 {
		t.Errorf("apply after editing the imported config: %+v %+v", res.Counts, res.Items)
	}
	if got := read(t, filepath.Join(dir, "CLAUDE.md")); !strings.Contains(got, "\nUse hogli, always.\n<!-- END actctl agent=claude-code -->") {
		t.Errorf("CLAUDE.md:\n%s", got)
	}
	if got := read(t, filepath.Join(dir, ".mcp.json")); !strings.Contains(got, "tools/phrocs/server.py") {
		t.Errorf(".mcp.json:\n%s", got)
	}
	writeTree(t, dir, map[string]string{"CLAUDE.md": strings.Replace(read(t, filepath.Join(dir, "CLAUDE.md")), "always", "sometimes", 1)})
	if res, _ := applyJSON(t, dir, home); res.Counts.Drifted != 1 {
		t.Errorf("a hand edit of the imported block: %+v %+v", res.Counts, res.Items)
	}
}

// TestImportKeepsWhatClaudeRead: Claude Code reads AGENTS.md only when
// there is no CLAUDE.md; import's apply creates one for the claude-code
// agent, so that agent gets AGENTS.md's prompt too and Claude Code still
// reads the text it read before import.
func TestImportKeepsWhatClaudeRead(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"AGENTS.md": "Shared rules.\n", ".mcp.json": `{"mcpServers": {"x": {"command": "x"}}}`})
	out := roundTrip(t, dir)
	if got := read(t, filepath.Join(dir, "CLAUDE.md")); !strings.Contains(got, "\nShared rules.\n") {
		t.Errorf("CLAUDE.md does not give Claude Code the text it read in AGENTS.md:\n%s", got)
	}
	if !strings.Contains(out.Config, `prompts: ["codex"]`) || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "claude-code has no CLAUDE.md, so it read AGENTS.md") {
		t.Errorf("notes %q\n%s", out.Notes, out.Config)
	}
}

// TestImportFileSizeLimit: import reads no file over importer.MaxFileSize
// (an actant.cue holding a 100 MB CLAUDE.md would make every later command
// slow): the instruction file is refused, naming it, its size and the
// limit, and nothing is written; any other file over it is left.
func TestImportFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	big := func(rel string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("Be brief.\n")
		if err := errors.Join(f.Truncate(importer.MaxFileSize+1), f.Close()); err != nil {
			t.Fatal(err)
		}
	}
	big("CLAUDE.md")
	before := stamps(t, dir)
	r := actctl(t, dir, "", "import")
	want := fmt.Sprintf("CLAUDE.md: cannot read it (CLAUDE.md is %d bytes, over the %d byte (1 MiB) limit of a file import reads); backend claude-code not imported", importer.MaxFileSize+1, importer.MaxFileSize)
	if r.Code != 1 || !strings.Contains(r.Stderr, want) {
		t.Errorf("exit %d, want %q in\n%s", r.Code, want, r.Stderr)
	}
	if after := stamps(t, dir); !equalStamps(before, after) {
		t.Errorf("wrote:\n%s", diffStamps(before, after))
	}

	dir = t.TempDir()
	writeTree(t, dir, map[string]string{"AGENTS.md": "Be brief.\n"})
	big(".cursor/commands/c.md")
	big(".cursor/skills/s/SKILL.md")
	big(".cursor/mcp.json")
	r = actctl(t, dir, "", "-o", "json", "import", "--dry-run")
	var got importJSON
	if err := json.Unmarshal([]byte(r.Stdout), &got); r.Code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s", r.Code, err, r.Stderr)
	}
	left := map[string]string{}
	for _, it := range got.Left {
		left[it.Path] = it.Reason
	}
	over := func(rel string) string {
		return fmt.Sprintf("%s is %d bytes, over the %d byte (1 MiB) limit of a file import reads", rel, importer.MaxFileSize+1, importer.MaxFileSize)
	}
	for p, want := range map[string]string{
		".cursor/commands/c.md": "cannot read it (" + over(".cursor/commands/c.md") + ")",
		".cursor/skills/s":      "no readable SKILL.md (" + over(".cursor/skills/s/SKILL.md") + ")",
		".cursor/mcp.json":      over(".cursor/mcp.json"),
	} {
		if left[p] != want {
			t.Errorf("left %s: %q, want %q", p, left[p], want)
		}
	}
}
