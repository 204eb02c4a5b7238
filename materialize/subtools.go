package materialize

import (
	"fmt"
	"slices"
	"strings"

	"github.com/actctl/actctl/schema"
)

// A template's subAgent.tools and subAgent.model are written in Claude
// Code's vocabulary (the common names); each sub-agent format translates
// them where the tool's vocabulary is known and warns where not. A
// backend's own values (subAgent.backends.<name>) are written as given
// (docs/formats.md, "Sub-agents").

// geminiTools maps Claude Code's tool names onto Gemini CLI's built-in
// tool names (gemini-cli packages/core/src/tools/tool-names.ts); Gemini's
// agent loader refuses a sub-agent with any other name.
var geminiTools = map[string]string{
	"Read":      "read_file",
	"Write":     "write_file",
	"Edit":      "replace",
	"MultiEdit": "replace",
	"Grep":      "grep_search",
	"Glob":      "glob",
	"LS":        "list_directory",
	"Bash":      "run_shell_command",
	"WebFetch":  "web_fetch",
	"WebSearch": "google_web_search",
	"TodoWrite": "write_todos",
}

// geminiNative are Gemini CLI's own built-in tool names, kept as written.
var geminiNative = []string{
	"read_file", "read_many_files", "write_file", "replace", "grep_search", "search_file_content",
	"glob", "list_directory", "run_shell_command", "web_fetch", "google_web_search",
	"save_memory", "write_todos",
}

// copilotTools maps Claude Code's tool names onto GitHub Copilot's tool
// aliases (docs.github.com, custom agents configuration: execute, read,
// edit, search, web, agent, todo).
var copilotTools = map[string]string{
	"Bash":         "execute",
	"Read":         "read",
	"NotebookRead": "read",
	"Edit":         "edit",
	"MultiEdit":    "edit",
	"Write":        "edit",
	"NotebookEdit": "edit",
	"Grep":         "search",
	"Glob":         "search",
	"LS":           "search",
	"WebFetch":     "web",
	"WebSearch":    "web",
	"Task":         "agent",
	"TodoWrite":    "todo",
}

// kiroTools maps Claude Code's tool names onto Kiro's tool categories
// (kiro.dev/docs/custom-agents: tools: [read, write, shell, web]).
var kiroTools = map[string]string{
	"Read": "read", "Grep": "read", "Glob": "read", "LS": "read", "NotebookRead": "read",
	"Write": "write", "Edit": "write", "MultiEdit": "write", "NotebookEdit": "write",
	"Bash":     "shell",
	"WebFetch": "web", "WebSearch": "web",
}

// kiroNative are Kiro's own tool categories, kept as written.
var kiroNative = []string{"read", "write", "shell", "web"}

// qwenTools maps Claude Code's tool names onto Qwen Code's built-in tool
// names (QwenLM/qwen-code packages/core/src/tools/tool-names.ts, ToolNames).
var qwenTools = map[string]string{
	"Read":      "read_file",
	"Write":     "write_file",
	"Edit":      "edit",
	"MultiEdit": "edit",
	"Grep":      "grep_search",
	"Glob":      "glob",
	"LS":        "list_directory",
	"Bash":      "run_shell_command",
	"WebFetch":  "web_fetch",
	"WebSearch": "web_search",
	"Task":      "agent",
}

// qwenNative are Qwen Code's own built-in tool names, kept as written.
var qwenNative = []string{
	"edit", "write_file", "read_file", "grep_search", "glob", "run_shell_command",
	"task_create", "task_get", "task_list", "task_update", "task_stop", "task_output",
	"save_memory", "agent", "skill", "exit_plan_mode", "web_fetch", "web_search",
	"list_directory", "lsp", "ask_user_question",
}

// clineTools maps Claude Code's tool names onto Cline's own
// (ClineDefaultTool, as read in the formats audit of late 2026: read_file,
// list_files, search_files); Cline's agent loader refuses any other name
// it does not know, so only these are translated.
var clineTools = map[string]string{
	"Read": "read_file",
	"LS":   "list_files",
	"Grep": "search_files",
}

// clineNative are the Cline tool names actctl knows, kept as written.
var clineNative = []string{"read_file", "list_files", "search_files"}

// claudeModels are Claude Code's model aliases: no other tool knows them.
var claudeModels = []string{"sonnet", "opus", "haiku", "opusplan"}

// subAgentTools returns the tools and model to write for sub-agent s in
// format, plus warnings about what is left out. The backend's own values
// replace the common ones, which are then not translated (nor warned about).
func subAgentTools(format string, s subAgent) ([]string, string, []string) {
	if s.sa == nil {
		return nil, "", nil
	}
	tools, model := s.sa.Tools, s.sa.Model
	n := s.sa.Backends[s.backend]
	if n.Tools != nil {
		tools = nil
	}
	if n.Model != "" {
		model = ""
	}
	tools, model, warns := translateSub(format, s.backend, tools, model)
	if n.Tools != nil {
		tools = n.Tools
	}
	if n.Model != "" {
		model = n.Model
	}
	return tools, model, warns
}

// translateSub turns Claude Code's tool names and model into format's.
func translateSub(format, backend string, tools []string, model string) ([]string, string, []string) {
	var warns []string
	if format != schema.FormatClaudeSub && slices.Contains(claudeModels, model) {
		warns = append(warns, fmt.Sprintf("model %q is a Claude Code alias that %s does not know; it is not written (the sub-agent uses the session's model); give its own in subAgent: backends: %q: model", model, backend, backend))
		model = ""
	}
	switch format {
	case subGemini:
		out, w := strictTools(tools, geminiTools, geminiNative, "are not Gemini CLI tool names (Gemini refuses such a sub-agent)", backend)
		return out, model, append(warns, w...)
	case subCline:
		out, w := strictTools(tools, clineTools, clineNative, "are not Cline tool names actctl knows (Cline refuses an agent naming a tool it does not know)", backend)
		return out, model, append(warns, w...)
	case subQwen:
		// Qwen Code does not refuse an unknown name; leaving one out
		// could leave no tool, and no tools list is every tool: kept.
		out, _ := mapTools(tools, qwenTools, nil)
		if unknown := unknownQwen(tools); len(unknown) > 0 {
			warns = append(warns, fmt.Sprintf("tools %s are not Qwen Code tool names; they are written as given; give its own in subAgent: backends: %q: tools", strings.Join(unknown, ", "), backend))
		}
		return out, model, warns
	case subCopilot:
		out, _ := mapTools(tools, copilotTools, nil)
		return out, model, warns
	case subKiro:
		out, unknown := mapTools(tools, kiroTools, kiroNative)
		if len(unknown) > 0 {
			warns = append(warns, fmt.Sprintf("tools %s have no Kiro tool category (read, write, shell, web); they are not written; give its own in subAgent: backends: %q: tools", strings.Join(unknown, ", "), backend))
		}
		return out, model, warns
	case subAgy:
		// Antigravity's tool names are not documented where we could read
		// them, and a wrong one can stall the agent: only its own are
		// written.
		if len(tools) > 0 {
			warns = append(warns, fmt.Sprintf("%s's tool names are not known to actctl; tools %s are not written (the agent may use every tool); give its own in subAgent: backends: %q: tools", subToolName(format, backend), strings.Join(tools, ", "), backend))
		}
		return nil, model, warns
	}
	return tools, model, warns
}

// strictTools translates tools for a tool that refuses a sub-agent naming
// a tool it does not know: unknown names are left out, with a warning
// saying why (why) and, when none is left, that tools is not written.
func strictTools(tools []string, m map[string]string, native []string, why, backend string) ([]string, []string) {
	out, unknown := mapTools(tools, m, native)
	if len(unknown) == 0 {
		return out, nil
	}
	warns := []string{fmt.Sprintf("tools %s %s; they are not written; give its own in subAgent: backends: %q: tools", strings.Join(unknown, ", "), why, backend)}
	if len(out) == 0 {
		warns = append(warns, "no tool is left, so tools is not written and the sub-agent may use every tool")
	}
	return out, warns
}

// unknownQwen lists the names in tools that are neither Claude Code names
// actctl translates nor Qwen Code's own.
func unknownQwen(tools []string) []string {
	var out []string
	for _, t := range tools {
		if _, ok := qwenTools[t]; !ok && !slices.Contains(qwenNative, t) {
			out = append(out, t)
		}
	}
	return out
}

// mapTools translates names through m; a name in native, or any name when
// native is nil, is kept as written. Unknown names are returned apart.
func mapTools(tools []string, m map[string]string, native []string) (out, unknown []string) {
	for _, t := range tools {
		n, ok := m[t]
		switch {
		case ok:
		case native == nil || slices.Contains(native, t):
			n = t
		default:
			unknown = append(unknown, t)
			continue
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, unknown
}
