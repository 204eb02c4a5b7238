package materialize

import (
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestSubAgentToolsPerBackend: subAgent tools and model in Claude Code's
// names reach each sub-agent format in that tool's own names where they
// are known (Gemini CLI, GitHub Copilot), a Claude model alias is never
// given to another tool, names a tool does not know are warned about and
// left out, and subAgent.backends.<name> is written as given (issue #23
// item 4).
func TestSubAgentToolsPerBackend(t *testing.T) {
	common := &schema.SubAgent{Tools: []string{"Read", "Grep", "Bash", "Glob", "mcp__github__get_issue"}, Model: "sonnet"}
	cases := []struct {
		backend, path string
		sa            *schema.SubAgent
		want          string
		warns         []string
	}{
		{"gemini", ".gemini/agents/tester.md", common,
			"tools: [\"read_file\", \"grep_search\", \"run_shell_command\", \"glob\"]\n---",
			[]string{`model "sonnet" is a Claude Code alias that gemini does not know`, "tools mcp__github__get_issue are not Gemini CLI tool names"}},
		{"copilot", ".github/agents/tester.agent.md", common,
			"tools: [\"read\", \"search\", \"execute\", \"mcp__github__get_issue\"]\n---",
			[]string{`model "sonnet" is a Claude Code alias that copilot does not know`}},
		{"codex", ".codex/agents/tester.toml", common, "developer_instructions",
			[]string{`model "sonnet" is a Claude Code alias that codex does not know`, "Codex custom agents take no tool list"}},
		{"cursor", ".cursor/agents/tester.md", common, "description: Writes tests\n---",
			[]string{`model "sonnet" is a Claude Code alias that cursor does not know`, "Cursor sub-agents take no tool list"}},
		// Cline: a .yaml agent (it loads no .md), its own tool names (an
		// unknown one is refused by Cline: left out), the model as modelId
		// (issue #34 item 1).
		{"cline", ".cline/agents/tester.yaml", common,
			"description: Writes tests\ntools: read_file, search_files\n---",
			[]string{`model "sonnet" is a Claude Code alias that cline does not know`, "tools Bash, Glob, mcp__github__get_issue are not Cline tool names actctl knows"}},
		{"cline", ".cline/agents/tester.yaml", &schema.SubAgent{Tools: []string{"LS", "list_files"}, Model: "anthropic/claude-4"},
			"tools: list_files\nmodelId: anthropic/claude-4\n---", nil},
		// Factory Droid and Auggie take their own tool ids only: the
		// common names are warned about under their own name.
		{"factory", ".factory/droids/tester.md", common, "description: Writes tests\n---",
			[]string{`model "sonnet" is a Claude Code alias that factory does not know`, "Factory Droid's tool names are not known to actctl; tools Read, Grep, Bash, Glob, mcp__github__get_issue are not written"}},
		{"auggie", ".augment/agents/tester.md", &schema.SubAgent{Tools: common.Tools, Backends: map[string]schema.SubAgentNative{"auggie": {Tools: []string{"view", "launch-process"}, Model: "gpt-5"}}},
			"tools: [\"view\", \"launch-process\"]\nmodel: gpt-5\n---", nil},
		{"rovodev", ".rovodev/subagents/tester.md", common, "description: Writes tests\n---",
			[]string{`model "sonnet" is a Claude Code alias that rovodev does not know`, "Rovo Dev's tool names are not known to actctl"}},
		// Deep Agents Code: a directory per sub-agent, AGENTS.md, no tools.
		{"deepagents", ".deepagents/agents/tester/AGENTS.md", &schema.SubAgent{Tools: []string{"Read"}, Model: "openai:gpt-5"},
			"name: tester\ndescription: Writes tests\nmodel: openai:gpt-5\n---", []string{"Deep Agents CLI sub-agents take no tool list"}},
		{"grok", ".grok/agents/tester.md", &schema.SubAgent{Tools: []string{"Read"}, Model: "grok-code-fast"},
			"description: Writes tests\nmodel: grok-code-fast\n---", []string{"Grok Build sub-agents take no tool list"}},
		{"claude-code", ".claude/agents/tester.md", common,
			"tools: Read, Grep, Bash, Glob, mcp__github__get_issue\nmodel: sonnet\n---", nil},
		// Nothing Gemini knows is left: no tools key, and the warning says so.
		{"gemini", ".gemini/agents/tester.md", &schema.SubAgent{Tools: []string{"NotebookEdit"}},
			"kind: local\n---", []string{"tools NotebookEdit are not Gemini CLI tool names", "no tool is left"}},
		// A backend's own values replace the common ones, unwarned.
		{"gemini", ".gemini/agents/tester.md", &schema.SubAgent{Tools: common.Tools, Model: "sonnet",
			Backends: map[string]schema.SubAgentNative{"gemini": {Tools: []string{"read_file", "my_mcp_tool"}, Model: "gemini-2.5-pro"}}},
			"tools: [\"read_file\", \"my_mcp_tool\"]\nmodel: gemini-2.5-pro\n---", nil},
		{"codex", ".codex/agents/tester.toml", &schema.SubAgent{Model: "opus", Backends: map[string]schema.SubAgentNative{"codex": {Model: "gpt-5.5"}}},
			"model = 'gpt-5.5'", nil},
	}
	for _, c := range cases {
		cfg := sampleConfig(c.backend, schema.ArchTool)
		tp := cfg.Templates["tester"]
		tp.SubAgent = c.sa
		cfg.Templates["tester"] = tp
		tg := render(t, cfg, "reviewer", Options{})
		e := tg.Find(c.path)
		if e == nil {
			t.Errorf("%s: no %s", c.backend, c.path)
			continue
		}
		got := string(e.Content)
		if !strings.Contains(got, c.want) {
			t.Errorf("%s %+v:\n%s\nwant it to hold %q", c.backend, c.sa, got, c.want)
		}
		if c.backend != "claude-code" && strings.Contains(got, "sonnet") {
			t.Errorf("%s got Claude's model alias:\n%s", c.backend, got)
		}
		var subWarns []string
		for _, w := range tg.Warnings {
			if strings.HasPrefix(w, `sub-agent "tester": `) && !strings.Contains(w, "are not rendered") {
				subWarns = append(subWarns, w)
			}
		}
		if len(subWarns) != len(c.warns) {
			t.Errorf("%s %+v: warnings %q, want %q", c.backend, c.sa, subWarns, c.warns)
			continue
		}
		for i, w := range c.warns {
			if !strings.Contains(subWarns[i], w) {
				t.Errorf("%s: warning %q, want %q", c.backend, subWarns[i], w)
			}
		}
	}
}
