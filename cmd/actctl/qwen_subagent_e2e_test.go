package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestQwenSubAgentToolsE2E: a Qwen Code sub-agent's tools are written in
// Qwen Code's own tool names (QwenLM/qwen-code tool-names.ts: Read is
// read_file, Bash run_shell_command, ...); Qwen's own names are kept; a
// name Qwen does not know is kept as written (left out, the list could
// come to nothing, which would give the sub-agent every tool) with a
// warning; subAgent.backends.qwen.tools is written as given. A re-apply
// writes nothing, the prune leaves the user's bytes (issue #23, Qwen Code
// sub-agent tool names).
func TestQwenSubAgentToolsE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
prompts: dev: content: "Write code."
prompts: rev: content: "Review code."
prompts: doc: content: "Write docs."
templates: {
	developer: {backend: "qwen", prompts: ["dev"], subAgents: ["reviewer", "writer"]}
	reviewer: {backend: "qwen", description: "Reviews", prompts: ["rev"], subAgent: tools: ["Read", "Grep", "Glob", "LS", "Bash", "Edit", "MultiEdit", "Write", "WebFetch", "WebSearch", "Task", "skill", "NotebookEdit"]}
	writer: {backend: "qwen", description: "Writes", prompts: ["doc"], subAgent: {tools: ["Read"], backends: qwen: tools: ["Read", "write_file"]}}
}
agents: {` + agents + `}
`
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".qwen/agents/mine.md": "---\nname: mine\ndescription: Mine\n---\nmine\n"},
		with:    cfg(`dev: template: "developer"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			want := "---\nname: reviewer\ndescription: Reviews\ntools: read_file, grep_search, glob, list_directory, run_shell_command, edit, write_file, web_fetch, web_search, agent, skill, NotebookEdit\n---\n"
			if got := read(t, filepath.Join(dir, ".qwen/agents/reviewer.md")); !strings.HasPrefix(got, want) {
				t.Errorf("reviewer:\n%s\nwant it to start with\n%s", got, want)
			}
			want = "---\nname: writer\ndescription: Writes\ntools: Read, write_file\n---\n"
			if got := read(t, filepath.Join(dir, ".qwen/agents/writer.md")); !strings.HasPrefix(got, want) {
				t.Errorf("writer:\n%s\nwant it to start with\n%s", got, want)
			}
			w := `tools NotebookEdit are not Qwen Code tool names; they are written as given`
			if out := r.Stdout + r.Stderr; !strings.Contains(out, w) {
				t.Errorf("no warning %q in:\n%s", w, out)
			}
		},
	})
}
