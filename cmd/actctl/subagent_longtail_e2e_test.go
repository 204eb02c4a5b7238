package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestLongTailSubAgentPermissions: Cline (from .yaml files, in its own
// tool names: issue #34 item 1), Qwen Code and Junie read
// Claude Code's sub-agent frontmatter (name, description, tools, model)
// but no permissionMode, and Kiro's agent profiles take tool categories
// and permission rules (none documents a permissionMode: docs/formats.md,
// "Sub-agents"), so the sub-agent's preset is not written there and a
// warning says so, instead of a permissionMode the tool ignores; Kiro
// gets its categories (Read, Grep: read), Qwen Code its own names
// (read_file, grep_search) (issue #23, the sub-agents'
// permissions).
func TestLongTailSubAgentPermissions(t *testing.T) {
	const claudeLike = "---\nname: reviewer\ndescription: Reviews\ntools: Read, Grep\n---\n"
	const noMode = "permissions (preset readonly) are not written: %s sub-agents take no permission setting"
	for _, tc := range []struct{ backend, file, head, warn string }{
		{"cline", ".cline/agents/reviewer.yaml", "---\nname: reviewer\ndescription: Reviews\ntools: read_file, search_files\n---\n", fmt.Sprintf(noMode, "cline")},
		{"kiro", ".kiro/agents/reviewer.md", "---\ndescription: Reviews\ntools: [read]\n---\n", "permissions (preset readonly) are not written: a Kiro agent's permissions are rules"},
		{"qwen", ".qwen/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews\ntools: read_file, grep_search\n---\n", fmt.Sprintf(noMode, "qwen")},
		{"junie", ".junie/agents/reviewer.md", claudeLike, fmt.Sprintf(noMode, "junie")},
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
			if !strings.HasPrefix(got, tc.head) || strings.Contains(got, "permissionMode") {
				t.Errorf("%s:\n%s\nwant it to start with\n%s", tc.file, got, tc.head)
			}
			warn := tc.warn
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
