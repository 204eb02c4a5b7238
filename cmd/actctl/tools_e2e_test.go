package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
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

// TestClaudeMDImportsAgentsMD: Claude Code reads AGENTS.md only in a
// project with no CLAUDE.md, so the CLAUDE.md actctl creates beside a
// user's AGENTS.md imports it inside the agent's block; re-apply writes
// nothing, prune removes the CLAUDE.md and leaves AGENTS.md's bytes
// (issue #23 item 1).
func TestClaudeMDImportsAgentsMD(t *testing.T) {
	agents := "# Project rules\n\nAlways run make test.\n"
	cfg := func(agent bool) string {
		s := "package actant\nprompts: reviewer: content: \"You review changes.\"\ntemplates: rev: {backend: \"claude-code\", prompts: [\"reviewer\"]}\n"
		if agent {
			s += "agents: rev: {template: \"rev\"}\n"
		}
		return s
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{"AGENTS.md": agents},
		with:    cfg(true),
		without: cfg(false),
		check: func(t *testing.T, dir string, r result) {
			want := "<!-- BEGIN actctl agent=rev -->\n@AGENTS.md\n\n## rev\n\nYou review changes.\n<!-- END actctl agent=rev -->\n"
			if got := read(t, filepath.Join(dir, "CLAUDE.md")); got != want {
				t.Errorf("CLAUDE.md:\n%s\nwant:\n%s", got, want)
			}
		},
	})
}

// TestClaudeMDImportOnlyUsersText: no import when the CLAUDE.md is the
// user's own (Claude reads it, not AGENTS.md, by the user's choice) or
// when AGENTS.md holds only actctl's blocks (a codex agent beside); an
// AGENTS.md the user writes after an apply is imported by the next one,
// though nothing else changed (the fast path watches it), and emptying it
// removes the import.
func TestClaudeMDImportOnlyUsersText(t *testing.T) {
	const base = "package actant\nprompts: p: content: \"Review.\"\ntemplates: {rev: {backend: \"claude-code\", prompts: [\"p\"]}, fix: {backend: \"codex\", prompts: [\"p\"]}}\n"
	imports := func(dir string) bool {
		return strings.Contains(read(t, filepath.Join(dir, "CLAUDE.md")), "@AGENTS.md")
	}
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"CLAUDE.md": "# Mine\n", "AGENTS.md": "# Rules\n"})
	writeConfig(t, dir, base+"agents: rev: {template: \"rev\"}\n")
	if mustApply(t, dir, home); imports(dir) {
		t.Error("the user's CLAUDE.md got an import")
	}

	dir, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, base+"agents: {rev: {template: \"rev\"}, fix: {template: \"fix\"}}\n")
	if mustApply(t, dir, home); imports(dir) {
		t.Error("an AGENTS.md of actctl's blocks only is imported")
	}

	dir, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, dir, base+"agents: rev: {template: \"rev\"}\n")
	mustApply(t, dir, home)
	mustApply(t, dir, home) // quiet: the next apply may take the fast path
	writeFiles(t, dir, map[string]string{"AGENTS.md": "# Rules\n"})
	if mustApply(t, dir, home); !imports(dir) {
		t.Errorf("the AGENTS.md the user wrote after an apply is not imported:\n%s", read(t, filepath.Join(dir, "CLAUDE.md")))
	}
	mustApply(t, dir, home) // quiet again
	// The user empties AGENTS.md: no new file, the directory unchanged;
	// only the file's own stat data says so.
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte("\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if mustApply(t, dir, home); imports(dir) {
		t.Error("the import outlives the user's text in AGENTS.md")
	}
}

// TestAdditionalDirectoriesE2E: additionalDirectories reach Codex as
// [sandbox_workspace_write] writable_roots (a ~/ one as given; a relative
// one is warned about, never resolved to this machine's path in the
// project's file: issue #34 item 4) and Gemini CLI as
// context.includeDirectories; a read-only Codex agent gets a warning
// instead; re-apply writes nothing and prune gives the user's files back
// (issue #23 item 3).
func TestAdditionalDirectoriesE2E(t *testing.T) {
	cfg := func(agents bool) string {
		s := `package actant
_dirs: ["../shared", "~/notes"]
templates: {
	cx: {backend: "codex", permissions: {defaultMode: "acceptEdits", additionalDirectories: _dirs}}
	ro: {backend: "codex", permissions: {defaultMode: "plan", additionalDirectories: _dirs}}
	gm: {backend: "gemini", permissions: {defaultMode: "acceptEdits", additionalDirectories: _dirs}}
}
`
		if agents {
			s += `agents: {cx: {template: "cx", workDir: "codex"}, ro: {template: "ro", workDir: "ro"}, gm: {template: "gm", workDir: "gemini"}}` + "\n"
		}
		return s
	}
	runArtifact(t, artifactCase{
		user: map[string]string{
			"codex/.codex/config.toml":     "# mine\nmodel = \"gpt-5\"\n",
			"ro/README.md":                 "ro\n",
			"gemini/.gemini/settings.json": "{\n  \"theme\": \"dark\"\n}\n",
		},
		with:    cfg(true),
		without: cfg(false),
		check: func(t *testing.T, dir string, r result) {
			var codex struct {
				Sandbox struct {
					Roots []string `toml:"writable_roots"`
				} `toml:"sandbox_workspace_write"`
			}
			if err := toml.Unmarshal([]byte(read(t, filepath.Join(dir, "codex/.codex/config.toml"))), &codex); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(codex.Sandbox.Roots, ","); got != "~/notes" {
				t.Errorf("codex writable_roots = %q", got)
			}
			if !strings.Contains(r.Stderr, `"../shared" is not written to codex's sandbox_workspace_write.writable_roots`) {
				t.Errorf("no warning about ../shared:\n%s", r.Stderr)
			}
			if ro := read(t, filepath.Join(dir, "ro/.codex/config.toml")); strings.Contains(ro, "writable_roots") {
				t.Errorf("read-only codex got writable_roots:\n%s", ro)
			}
			var gemini struct {
				Context struct {
					Include []string `json:"includeDirectories"`
				} `json:"context"`
				Theme string `json:"theme"`
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, "gemini/.gemini/settings.json"))), &gemini); err != nil {
				t.Fatal(err)
			}
			if strings.Join(gemini.Context.Include, ",") != "../shared,~/notes" || gemini.Theme != "dark" {
				t.Errorf("gemini settings: %+v", gemini)
			}
			out := r.Stdout + r.Stderr
			if !strings.Contains(out, "codex's sandbox is read-only under mode plan") || strings.Contains(out, "additionalDirectories cannot be expressed") {
				t.Errorf("warnings:\n%s", out)
			}
		},
	})
}
