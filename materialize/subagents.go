package materialize

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/actctl/actctl/internal/frontmatter"
	"github.com/actctl/actctl/schema"
)

// Sub-agent formats (docs/formats.md "Sub-agents").
const (
	subCodex    = schema.FormatCodexSub
	subGemini   = schema.FormatGeminiSub
	subCursor   = schema.FormatCursorSub
	subCopilot  = schema.FormatCopilotSub
	subOpenCode = schema.FormatOpenCodeSub
	subDevin    = schema.FormatDevinSub
	subAgy      = schema.FormatAntigravitySub
	subMarkdown = schema.FormatMarkdownSub
	subKiro     = schema.FormatKiroSub
	subQwen     = schema.FormatQwenSub
	subCline    = schema.FormatClineSub
	subGoose    = schema.FormatGooseSub
	subDeep     = schema.FormatDeepagentsSub
)

// subAgent is one sub-agent to render: a template listed in subAgents.
type subAgent struct {
	name, desc, prompt string
	sa                 *schema.SubAgent
	// perms are the sub-agent template's own permissions (subAgentPerms).
	perms schema.Permissions
	// backend names the agent's backend, whose own subAgent.backends
	// entry, if any, is written as given.
	backend string
}

func (rd *renderer) subAgents(f schema.Files) error {
	r := rd.r
	if len(r.Template.SubAgents) == 0 {
		return nil
	}
	if f.SubAgents == nil {
		rd.warn("backend %q has no sub-agents layout: sub-agents %s of template %q are not rendered", r.BackendName, strings.Join(r.Template.SubAgents, ", "), r.TemplateName)
		return nil
	}
	switch f.SubAgents.Format {
	case schema.FormatClaudeSub, subMarkdown, subCline, subQwen, subKiro, subCodex, subGemini, subCursor, subGoose, subCopilot, subOpenCode, subAgy:
	case subDevin, subDeep:
		if f.SubAgents.Ext != "" {
			return fmt.Errorf("backend %q: sub-agents format %s writes <dir>/<name>/%s: ext %q does not apply", r.BackendName, f.SubAgents.Format, subDirFile[f.SubAgents.Format], f.SubAgents.Ext)
		}
	default:
		return fmt.Errorf("backend %q: unknown sub-agents format %q (want claude, subagent, cline, qwen, kiro, codex, gemini, cursor, copilot, opencode, antigravity, goose, devin or deepagents)", r.BackendName, f.SubAgents.Format)
	}
	for _, ref := range r.Template.SubAgents {
		s, err := rd.subAgent(ref)
		if err != nil {
			return err
		}
		origin := fmt.Sprintf("sub-agent %q", ref)
		if !validSkillName(s.name) {
			rd.warn("%s: name %q should be lowercase letters, digits and hyphens", origin, s.name)
		}
		p, content, warns, err := subAgentFile(f.SubAgents, s)
		if err != nil {
			return fmt.Errorf("%s: %w", origin, err)
		}
		for _, w := range warns {
			rd.warn("%s: %s", origin, w)
		}
		if err := rd.addFile(p, content, origin); err != nil {
			return err
		}
	}
	return nil
}

// subAgent looks up template ref and renders its prompts with its own
// vars overridden by the agent's (the agent is what the user configured
// last).
func (rd *renderer) subAgent(ref string) (subAgent, error) {
	r := rd.r
	t, ok := rd.cfg.Templates[ref]
	if !ok {
		return subAgent{}, fmt.Errorf("sub-agent template %q is not declared", ref)
	}
	name := diskName(ref)
	origin := fmt.Sprintf("sub-agent %q", ref)
	vars := make(map[string]string, len(t.Vars)+len(r.Vars))
	for k, v := range t.Vars {
		vars[k] = v
	}
	for k, v := range r.Vars {
		vars[k] = v
	}
	var parts []string
	for _, pref := range t.Prompts {
		p, ok := rd.cfg.Prompts[pref]
		if !ok {
			return subAgent{}, fmt.Errorf("%s: prompt %q is not declared", origin, pref)
		}
		parts = append(parts, rd.fill(fmt.Sprintf("%s prompt %q", origin, pref), p.Content, vars))
	}
	desc := t.Description
	if strings.TrimSpace(desc) == "" {
		desc = "Sub-agent " + name
	}
	if len(t.Skills)+len(t.MCPServers)+len(t.SubAgents) > 0 {
		rd.warn("%s: its skills, MCP servers and sub-agents are not rendered; only its description and prompts are", origin)
	}
	return subAgent{name: name, desc: desc, prompt: joinParagraphs(parts...), sa: t.SubAgent, perms: t.Permissions, backend: r.BackendName}, nil
}

// subAgentFile renders one sub-agent in the layout's format.
func subAgentFile(l *schema.DirLayout, s subAgent) (string, []byte, []string, error) {
	tools, model, warns := subAgentTools(l.Format, s)
	mode, more, err := subAgentPerms(l.Format, s.backend, s.perms)
	if err != nil {
		return "", nil, nil, err
	}
	warns = append(warns, more...)
	fields := []frontmatter.Line{{Key: "name", Value: frontmatter.Scalar(s.name)}, {Key: "description", Value: frontmatter.Scalar(s.desc)}}
	switch l.Format {
	case schema.FormatClaudeSub, subMarkdown, subQwen:
		// code.claude.com/docs/en/sub-agents: tools comma-separated
		// (omitted: every tool of the session), model, permissionMode
		// (subagent: never, subAgentPerms gives no mode).
		if len(tools) > 0 {
			fields = append(fields, frontmatter.Line{Key: "tools", Value: frontmatter.Scalar(strings.Join(tools, ", "))})
		}
		if model != "" {
			fields = append(fields, frontmatter.Line{Key: "model", Value: frontmatter.Scalar(model)})
		}
		if mode != "" {
			fields = append(fields, frontmatter.Line{Key: "permissionMode", Value: frontmatter.Scalar(mode)})
		}
		return joinRel(l.Dir, s.name+extOr(l, ".md")), frontmatter.Lines(fields, s.prompt), warns, nil
	case subCline:
		// Cline's loader (docs/formats.md, "cline") reads only .yaml/.yml
		// files: the subagent frontmatter and body, the model as modelId.
		if len(tools) > 0 {
			fields = append(fields, frontmatter.Line{Key: "tools", Value: frontmatter.Scalar(strings.Join(tools, ", "))})
		}
		if model != "" {
			fields = append(fields, frontmatter.Line{Key: "modelId", Value: frontmatter.Scalar(model)})
		}
		return joinRel(l.Dir, s.name+extOr(l, ".yaml")), frontmatter.Lines(fields, s.prompt), warns, nil
	case subGemini:
		// gemini-cli docs/core/subagents.md: kind local, tools a YAML
		// list of Gemini CLI tool names, model.
		fields = append(fields, frontmatter.Line{Key: "kind", Value: "local"})
		if len(tools) > 0 {
			fields = append(fields, frontmatter.Line{Key: "tools", Value: "[" + strings.Join(quoteAll(tools), ", ") + "]"})
		}
		if model != "" {
			fields = append(fields, frontmatter.Line{Key: "model", Value: frontmatter.Scalar(model)})
		}
		return joinRel(l.Dir, s.name+extOr(l, ".md")), frontmatter.Lines(fields, s.prompt), warns, nil
	case subKiro:
		// kiro.dev/docs/custom-agents: description, model, tools a list
		// of tool categories; the file's name is the agent's.
		fields = fields[1:]
		if model != "" {
			fields = append(fields, frontmatter.Line{Key: "model", Value: frontmatter.Scalar(model)})
		}
		if len(tools) > 0 {
			fields = append(fields, frontmatter.Line{Key: "tools", Value: "[" + strings.Join(tools, ", ") + "]"})
		}
		return joinRel(l.Dir, s.name+extOr(l, ".md")), frontmatter.Lines(fields, s.prompt), warns, nil
	case subCursor, subGoose, subDeep:
		// cursor.com/docs/subagents: name, description, model; no tool
		// list. Goose's custom agents (its custom-agents guide): name,
		// description, model (and provider); body = the system prompt.
		// Deep Agents CLI's (its SubagentMetadata): the same, in a
		// directory per sub-agent holding AGENTS.md.
		if model != "" {
			fields = append(fields, frontmatter.Line{Key: "model", Value: frontmatter.Scalar(model)})
		}
		if len(tools) > 0 {
			warns = append(warns, subToolName(l.Format, s.backend)+" sub-agents take no tool list; subAgent.tools is not written")
		}
		p := joinRel(l.Dir, s.name+extOr(l, ".md"))
		if l.Format == subDeep {
			p = joinRel(l.Dir, s.name+"/"+subDirFile[subDeep])
		}
		return p, frontmatter.Lines(fields, s.prompt), warns, nil
	case subCopilot:
		// GitHub Copilot custom agents (code.visualstudio.com/docs/copilot/customization/custom-agents,
		// docs.github.com custom agents): name, description, tools a
		// list of Copilot tool names, model a model's display name.
		if len(tools) > 0 {
			fields = append(fields, frontmatter.Line{Key: "tools", Value: "[" + strings.Join(quoteAll(tools), ", ") + "]"})
		}
		if model != "" {
			fields = append(fields, frontmatter.Line{Key: "model", Value: frontmatter.Scalar(model)})
		}
		return joinRel(l.Dir, s.name+extOr(l, ".agent.md")), frontmatter.Lines(fields, s.prompt), warns, nil
	case subAgy:
		// Antigravity custom agents (antigravity.google/docs/subagents, via
		// rulesync antigravity-shared-subagent.ts): name, description, tools
		// a list of Antigravity's tool names, model (default inherit).
		if len(tools) > 0 {
			fields = append(fields, frontmatter.Line{Key: "tools", Value: "[" + strings.Join(quoteAll(tools), ", ") + "]"})
		}
		if model != "" && model != "inherit" {
			fields = append(fields, frontmatter.Line{Key: "model", Value: frontmatter.Scalar(model)})
		}
		return joinRel(l.Dir, s.name+extOr(l, ".md")), frontmatter.Lines(fields, s.prompt), warns, nil
	case subOpenCode:
		p, b, w := openCodeAgent(l, s, tools, model)
		return p, b, append(warns, w...), nil
	case subDevin:
		// docs.devin.ai/cli/subagents (via rulesync devin-subagent.ts):
		// a directory per profile, named for it, holding AGENT.md with
		// name, description, model and an allowed-tools list.
		if model != "" {
			fields = append(fields, frontmatter.Line{Key: "model", Value: frontmatter.Scalar(model)})
		}
		if len(tools) > 0 {
			fields = append(fields, frontmatter.Line{Key: "allowed-tools", Value: "[" + strings.Join(quoteAll(tools), ", ") + "]"})
		}
		return joinRel(l.Dir, s.name+"/"+subDirFile[subDevin]), frontmatter.Lines(fields, s.prompt), warns, nil
	case subCodex:
		if len(tools) > 0 {
			warns = append(warns, "Codex custom agents take no tool list; subAgent.tools is not written")
		}
		b, err := codexAgent(s, model, codexByMode[mode].Sandbox)
		return joinRel(l.Dir, s.name+extOr(l, ".toml")), b, warns, err
	}
	return "", nil, nil, fmt.Errorf("unknown sub-agents format %q", l.Format)
}

// subAgentPerms is what of a sub-agent template's permissions its
// backend's sub-agent format holds (docs/formats.md "Sub-agents"): the
// permission mode (Claude Code permissionMode; Codex sandbox_mode, see
// codexByMode), and a warning for what it cannot hold (permission rules;
// Codex's approval policy and network; any permission for Gemini CLI,
// Cursor, GitHub Copilot and OpenCode sub-agents, and those of the
// subagent format, which run with the main session's).
func subAgentPerms(format, backend string, p schema.Permissions) (string, []string, error) {
	if p.Unset() {
		return "", nil, nil
	}
	mode, err := effectiveMode(p)
	if err != nil {
		return "", nil, err
	}
	what := "rules"
	if p.Preset != "" {
		what = "preset " + p.Preset
	}
	rules := len(p.Allow)+len(p.Deny)+len(p.Ask)+len(p.AdditionalDirectories) > 0
	var warns []string
	switch format {
	case schema.FormatClaudeSub:
		if rules {
			warns = append(warns, "permission rules (allow, deny, ask, additionalDirectories) are not written: a Claude Code sub-agent takes permissionMode and a tool list (subAgent.tools), not rules; it runs with the main session's")
		}
		return mode, warns, nil
	case subCodex:
		pol := codexByMode[mode]
		if mode != "" && (pol.Approval != "on-request" || pol.Network) {
			warns = append(warns, fmt.Sprintf("permissions (%s): only sandbox_mode %q is written; a Codex custom agent's approval policy and network access are the main session's", what, pol.Sandbox))
		}
		if rules {
			warns = append(warns, "permission rules (allow, deny, ask, additionalDirectories) are not written: a Codex custom agent takes a sandbox_mode, not rules")
		}
		return mode, warns, nil
	case subKiro:
		return "", []string{fmt.Sprintf("permissions (%s) are not written: a Kiro agent's permissions are rules ({capability, effect, match}), which actctl does not write yet (its tools list, subAgent.tools, restricts it); it runs with the main session's", what)}, nil
	case subGemini:
		return "", []string{fmt.Sprintf("permissions (%s) are not written: Gemini CLI sub-agents take no permission setting (a tool list, subAgent.tools, restricts them); it runs with the main session's", what)}, nil
	default:
		return "", []string{fmt.Sprintf("permissions (%s) are not written: %s sub-agents take no permission setting; it runs with the main session's", what, subToolName(format, backend))}, nil
	}
}

// subTool names the tool of a sub-agent format without a permission setting.
var subTool = map[string]string{subCursor: "Cursor", subGoose: "Goose", subCopilot: "GitHub Copilot", subOpenCode: "OpenCode", subDevin: "Devin", subAgy: "Antigravity", subDeep: "Deep Agents CLI"}

// subDirFile is the file of the formats that write a directory per
// sub-agent: <dir>/<name>/<file>.
var subDirFile = map[string]string{subDevin: "AGENT.md", subDeep: "AGENTS.md"}

// sharedFormatTool names the built-in backends whose sub-agents are
// written in another tool's format (Factory Droid's droids, Auggie's and
// Rovo Dev's agents take Antigravity's frontmatter, Grok Build's Goose's), so warnings name their tool.
var sharedFormatTool = map[string]string{"factory": "Factory Droid", "auggie": "Auggie", "rovodev": "Rovo Dev", "grok": "Grok Build"}

// subToolName is the tool a warning about backend's sub-agents in format
// names: the backend's own when it shares the format, else the format's,
// else the backend's name (subagent: several tools share the format).
func subToolName(format, backend string) string {
	if t := sharedFormatTool[backend]; t != "" {
		return t
	}
	if t := subTool[format]; t != "" {
		return t
	}
	return backend
}

// codexAgent is a Codex custom agent (developers.openai.com/codex/subagents):
// name, description, developer_instructions, optional model ("inherit"
// means leaving it out: the agent then uses the session's model) and
// sandbox_mode (from the sub-agent's permissions).
func codexAgent(s subAgent, model, sandbox string) ([]byte, error) {
	if model == "inherit" {
		model = ""
	}
	v := struct {
		Name         string `toml:"name"`
		Description  string `toml:"description"`
		Model        string `toml:"model,omitempty"`
		Sandbox      string `toml:"sandbox_mode,omitempty"`
		Instructions string `toml:"developer_instructions,multiline"`
	}{s.name, s.desc, model, sandbox, s.prompt}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(v); err != nil {
		return nil, fmt.Errorf("encode codex agent: %w", err)
	}
	return b.Bytes(), nil
}

// openCodeAgent is an OpenCode agent file (opencode.ai/docs/agents): the
// file name is the agent's name; frontmatter description (required),
// mode subagent (invoked by the primary agent or as @name), model
// ("provider/model-id"; left out for inherit, which is OpenCode's default
// for a sub-agent). OpenCode's tools are a map of switches, not a list, so
// subAgent.tools is not written.
func openCodeAgent(l *schema.DirLayout, s subAgent, tools []string, model string) (string, []byte, []string) {
	var warns []string
	fields := []frontmatter.Line{{Key: "description", Value: frontmatter.Scalar(s.desc)}, {Key: "mode", Value: "subagent"}}
	if model != "" && model != "inherit" {
		fields = append(fields, frontmatter.Line{Key: "model", Value: frontmatter.Scalar(model)})
	}
	if len(tools) > 0 {
		warns = append(warns, "OpenCode agents take tool switches (tools: {name: false}), not a list; subAgent.tools is not written")
	}
	return joinRel(l.Dir, s.name+extOr(l, ".md")), frontmatter.Lines(fields, s.prompt), warns
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = frontmatter.Quote(x)
	}
	return out
}
