package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestLongTailSubAgentPermissions: Cline, Kiro, Qwen Code and Junie read
// Claude Code's sub-agent frontmatter (name, description, tools, model)
// but no permissionMode (none documents one: docs/formats.md,
// "Sub-agents"), so the sub-agent's preset is not written there and a
// warning says so, instead of a permissionMode the tool ignores (issue
// #23, the sub-agents' permissions).
func TestLongTailSubAgentPermissions(t *testing.T) {
	for _, tc := range []struct{ backend, file string }{
		{"cline", ".cline/agents/reviewer.md"},
		{"kiro", ".kiro/agents/reviewer.md"},
		{"qwen", ".qwen/agents/reviewer.md"},
		{"junie", ".junie/agents/reviewer.md"},
	} {
		t.Run(tc.backend, func(t *testing.T) {
			dir := t.TempDir()
			writeConfig(t, dir, `package actant

prompts: dev: content: "Write code."
prompts: rev: content: "Review code."
templates: {
	developer: {backend: "`+tc.backend+`", prompts: ["dev"], subAgents: ["reviewer"]}
	reviewer: {backend: "`+tc.backend+`", description: "Reviews", prompts: ["rev"], permissions: "readonly", subAgent: tools: ["Read", "Grep"]}
}
agents: dev: template: "developer"
`)
			res, r := applyJSON(t, dir, "")
			if r.Code != 0 {
				t.Fatalf("apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
			}
			got := read(t, filepath.Join(dir, tc.file))
			if want := "---\nname: reviewer\ndescription: Reviews\ntools: Read, Grep\n---\n"; !strings.HasPrefix(got, want) || strings.Contains(got, "permissionMode") {
				t.Errorf("%s:\n%s\nwant it to start with\n%s", tc.file, got, want)
			}
			warn := "permissions (preset readonly) are not written: " + tc.backend + " sub-agents take no permission setting"
			warned := false
			for _, w := range res.Warnings {
				warned = warned || strings.Contains(w, warn)
			}
			if !warned {
				t.Errorf("no warning %q in %q", warn, res.Warnings)
			}
		})
	}
}
