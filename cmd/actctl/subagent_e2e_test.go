package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTwoAgentsOneDirectory: a developer agent and a readonly reviewer on
// one backend in one directory collide; the message names the two ways
// out (a workDir of its own, or the reviewer as a sub-agent) and nothing
// is written. For every backend.
func TestTwoAgentsOneDirectory(t *testing.T) {
	for _, backend := range []string{"claude-code", "codex", "gemini", "cursor-agent"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			writeConfig(t, dir, `package actant

prompts: dev: content: "Write code."
prompts: rev: content: "Review code."
templates: {
	developer: {backend: "`+backend+`", prompts: ["dev"], permissions: "standard"}
	reviewer: {backend: "`+backend+`", prompts: ["rev"], permissions: "readonly"}
}
agents: {
	dev: template: "developer"
	rev: template: "reviewer"
}
`)
			r := actctl(t, dir, "", "apply")
			if r.Code != 1 {
				t.Fatalf("apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			for _, want := range []string{`agents "dev" and "rev" share this directory`, "agents.rev.workDir", `templates.developer.subAgents: ["reviewer"]`} {
				if !strings.Contains(r.Stderr, want) {
					t.Errorf("message lacks %q:\n%s", want, r.Stderr)
				}
			}
			if n := strings.Count(r.Stderr, "share this directory"); n != 1 {
				t.Errorf("the hint is given %d times, want once:\n%s", n, r.Stderr)
			}
			assertNotWritten(t, dir, "colliding agents", "CLAUDE.md", "AGENTS.md", "GEMINI.md", ".claude", ".codex", ".gemini", ".cursor", ".gitignore", ".actant")
		})
	}
}

// TestSubAgentPermissions: the reviewer as a sub-agent of the developer
// (the pattern the README shows) keeps its preset where the tool's
// sub-agent format holds it (Claude Code permissionMode beside its tool
// list, Codex sandbox_mode), and a warning says so where it cannot
// (Gemini CLI and Cursor sub-agents, Codex's approval policy), instead of
// dropping it silently.
func TestSubAgentPermissions(t *testing.T) {
	for _, tc := range []struct {
		backend, preset, file string
		want                  []string
		warn                  string
	}{
		{"claude-code", "readonly", ".claude/agents/reviewer.md", []string{"permissionMode: plan", "tools: Read, Grep"}, ""},
		{"claude-code", "permissive", ".claude/agents/reviewer.md", []string{"permissionMode: bypassPermissions"}, ""},
		{"codex", "readonly", ".codex/agents/reviewer.toml", []string{`sandbox_mode = 'read-only'`}, ""},
		{"codex", "permissive", ".codex/agents/reviewer.toml", []string{`sandbox_mode = 'workspace-write'`}, "approval policy and network access are the main session's"},
		{"gemini", "readonly", ".gemini/agents/reviewer.md", []string{"Review code."}, "permissions (preset readonly) are not written: Gemini CLI sub-agents take no permission setting"},
		{"cursor", "readonly", ".cursor/agents/reviewer.md", []string{"Review code."}, "permissions (preset readonly) are not written: Cursor sub-agents take no permission setting"},
	} {
		t.Run(tc.backend+"-"+tc.preset, func(t *testing.T) {
			dir := t.TempDir()
			writeConfig(t, dir, `package actant

prompts: dev: content: "Write code."
prompts: rev: content: "Review code."
templates: {
	developer: {backend: "`+tc.backend+`", prompts: ["dev"], subAgents: ["reviewer"]}
	reviewer: {backend: "`+tc.backend+`", description: "Reviews", prompts: ["rev"], permissions: "`+tc.preset+`", subAgent: tools: ["Read", "Grep"]}
}
agents: dev: template: "developer"
`)
			res, r := applyJSON(t, dir, "")
			if r.Code != 0 {
				t.Fatalf("apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			got := read(t, filepath.Join(dir, tc.file))
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("%s lacks %q:\n%s", tc.file, w, got)
				}
			}
			warned := false
			for _, w := range res.Warnings {
				warned = warned || tc.warn != "" && strings.Contains(w, tc.warn)
				if tc.warn == "" && strings.Contains(w, "permission") {
					t.Errorf("unexpected warning: %s", w)
				}
			}
			if tc.warn != "" && !warned {
				t.Errorf("no warning %q in %q", tc.warn, res.Warnings)
			}
		})
	}
}
