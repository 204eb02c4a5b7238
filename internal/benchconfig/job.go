package benchconfig

import (
	"fmt"
	"strings"
)

// The job of docs/benchmarks.md: 200 skills and one MCP server into Claude
// Code, Codex and Cursor, one agent per backend in the same workspace
// (about 600 files). procbench runs it through the binary, reconcile's
// BenchmarkJobEditSkill in process.
const (
	JobSkills = 200
	EditSkill = "skill-000"
)

// JobBackends are the job's backends, one agent (named after it) each.
var JobBackends = []string{"claude-code", "codex", "cursor"}

// JobSkillCopies is how many copies of each skill the job writes: Claude
// Code's in .claude/skills and Codex's in .agents/skills; Cursor reads
// both and gets none of its own (docs/formats.md, "Shared skill
// directories"). Editing one skill changes that many files.
const JobSkillCopies = 2

// JobSkillContent is the content of skill i at revision rev: only
// EditSkill's content depends on rev.
func JobSkillContent(i, rev int) string {
	content := fmt.Sprintf("Follow rule %d: keep the change small and tested.", i)
	if fmt.Sprintf("skill-%03d", i) == EditSkill {
		content += fmt.Sprintf(" Revision %d.", rev)
	}
	return content
}

// JobConfig returns the job's actant.cue; rev changes the content of
// EditSkill only, so two revisions differ by one skill.
func JobConfig(rev int) string {
	var sb strings.Builder
	sb.WriteString("package actant\n\n")
	names := make([]string, JobSkills)
	for i := range names {
		names[i] = fmt.Sprintf("skill-%03d", i)
		fmt.Fprintf(&sb, "skills: %q: {description: \"Skill number %d\", content: %q}\n", names[i], i, JobSkillContent(i, rev))
	}
	sb.WriteString("mcpServers: fs: {command: \"npx\", args: [\"-y\", \"@modelcontextprotocol/server-filesystem\", \".\"]}\n")
	list := `"` + strings.Join(names, `", "`) + `"`
	for _, b := range JobBackends {
		fmt.Fprintf(&sb, "templates: %q: {backend: %q, skills: [%s], mcpServers: [\"fs\"]}\n", b, b, list)
		fmt.Fprintf(&sb, "agents: %q: {template: %q, workDir: \".\"}\n", b, b)
	}
	return sb.String()
}
