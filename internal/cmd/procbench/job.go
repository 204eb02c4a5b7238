package main

import (
	"fmt"
	"strings"
)

// The job of docs/benchmarks.md: 200 skills and one MCP server into Claude
// Code, Codex and Cursor, one agent per backend in the same workspace
// (about 600 files).
const (
	jobSkills = 200
	editSkill = "skill-000"
)

var jobBackends = []string{"claude-code", "codex", "cursor"}

// jobConfig returns the job's actant.cue; rev changes the content of
// editSkill only, so two revisions differ by one skill.
func jobConfig(rev int) string {
	var sb strings.Builder
	sb.WriteString("package actant\n\n")
	names := make([]string, jobSkills)
	for i := range names {
		names[i] = fmt.Sprintf("skill-%03d", i)
		content := fmt.Sprintf("Follow rule %d: keep the change small and tested.", i)
		if names[i] == editSkill {
			content += fmt.Sprintf(" Revision %d.", rev)
		}
		fmt.Fprintf(&sb, "skills: %q: {description: \"Skill number %d\", content: %q}\n", names[i], i, content)
	}
	sb.WriteString("mcpServers: fs: {command: \"npx\", args: [\"-y\", \"@modelcontextprotocol/server-filesystem\", \".\"]}\n")
	list := `"` + strings.Join(names, `", "`) + `"`
	for _, b := range jobBackends {
		fmt.Fprintf(&sb, "templates: %q: {backend: %q, skills: [%s], mcpServers: [\"fs\"]}\n", b, b, list)
		fmt.Fprintf(&sb, "agents: %q: {template: %q, workDir: \".\"}\n", b, b)
	}
	return sb.String()
}
