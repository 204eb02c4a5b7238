// Package benchconfig generates the benchmark workspace config: n agents
// sharing one template with 20 skills, a prompt and an MCP server. One
// generator serves schema's BenchmarkLoad and the genbench tool, which
// writes the same input out for the `cue export` comparison in
// docs/benchmarks.md, so both measure exactly the same file.
package benchconfig

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteFilesSkills writes FilesSkills(n, k) into dir.
func WriteFilesSkills(dir string, n, k int) error {
	for name, content := range FilesSkills(n, k) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// FilesSkills are the files of a workspace with n agents and k skills in
// the shared template: its actant.cue (Config) and a placeholder in each
// agent's workDir, which must exist. The benchmarks of package schema
// take 20 skills; the 10,000-agent workspace of docs/benchmarks.md has 2,
// so that its cold apply writes ~6 files per agent instead of ~24.
func FilesSkills(n, k int) map[string]string {
	files := map[string]string{"actant.cue": ConfigSkills(n, k)}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("work/agent-%d/.keep", i)] = ""
	}
	return files
}

// ConfigSkills is the actant.cue of a workspace with n agents and k
// skills in the shared template.
func ConfigSkills(n, k int) string {
	var b strings.Builder
	b.WriteString("package actant\n\n")
	for i := 0; i < k; i++ {
		fmt.Fprintf(&b, "skills: \"skill-%d\": {description: \"skill %d\", content: \"Do thing %d well.\"}\n", i, i, i)
	}
	b.WriteString("prompts: base: content: \"You work on {{project}}.\"\n")
	b.WriteString("mcpServers: fs: {command: \"npx\", args: [\"-y\", \"server-filesystem\"]}\n")
	b.WriteString("templates: base: {\n\tbackend: \"claude-code\"\n\tprompts: [\"base\"]\n\tmcpServers: [\"fs\"]\n\tskills: [")
	for i := 0; i < k; i++ {
		fmt.Fprintf(&b, "\"skill-%d\", ", i)
	}
	b.WriteString("]\n}\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "agents: \"agent-%d\": {template: \"base\", workDir: \"work/agent-%d\", vars: project: \"p%d\"}\n", i, i, i)
	}
	return b.String()
}
