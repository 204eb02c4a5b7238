package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"cuelang.org/go/cue/format"
	"cuelang.org/go/cue/literal"

	"github.com/actctl/actctl/schema"
)

// render writes the plan's actant.cue, formatted as `cue fmt --simplify`
// would (labels unquoted where CUE allows, one-field structs on one line).
func (p *Plan) render() []byte {
	return formatCUE(p.renderText())
}

// formatCUE is src formatted by CUE's formatter, or src as it is should
// the formatter refuse it (the config is valid CUE either way: the load
// after writing checks it).
func formatCUE(src []byte) []byte {
	out, err := format.Source(src, format.Simplify())
	if err != nil {
		return src
	}
	return out
}

// renderText writes the plan's actant.cue, the values as JSON (CUE too).
func (p *Plan) renderText() []byte {
	var b bytes.Buffer
	b.WriteString("// Written by `actctl import` from this repository's agent files\n")
	b.WriteString("// (docs/import.md). Each agent is one tool as it was configured here.\n")
	b.WriteString("package actant\n")
	if len(p.skills) > 0 {
		b.WriteString("\nskills: {\n")
		for _, n := range slices.Sorted(maps.Keys(p.skills)) {
			if r := p.skills[n].rule; r != nil {
				fmt.Fprintf(&b, "\t// From %s.\n\t%s: {\n", p.skills[n].found, jsonText(n))
				fmt.Fprintf(&b, "\t\tdescription: %s\n\t\tpaths: %s\n", jsonText(r.Description), jsonText(r.Paths))
				fmt.Fprintf(&b, "\t\tcontent: %s\n\t}\n", literal.String.WithTabIndent(2).Quote(r.Content))
				continue
			}
			fmt.Fprintf(&b, "\t%s: dir: %s\n", jsonText(n), jsonText(p.skills[n].dir))
		}
		b.WriteString("}\n")
	}
	if len(p.mcp) > 0 {
		b.WriteString("\nmcpServers: {\n")
		for _, n := range slices.Sorted(maps.Keys(p.mcp)) {
			fmt.Fprintf(&b, "\t%s: %s\n", jsonText(n), serverText(p.mcp[n].s))
		}
		b.WriteString("}\n")
	}
	if len(p.commands) > 0 {
		b.WriteString("\ncommands: {\n")
		for _, n := range slices.Sorted(maps.Keys(p.commands)) {
			c := p.commands[n].c
			fmt.Fprintf(&b, "\t%s: {\n", jsonText(n))
			if c.Description != "" {
				fmt.Fprintf(&b, "\t\tdescription: %s\n", jsonText(c.Description))
			}
			fmt.Fprintf(&b, "\t\tcontent: %s\n\t}\n", literal.String.WithTabIndent(2).Quote(c.Content))
		}
		b.WriteString("}\n")
	}
	var prompts []*agent
	for _, a := range p.agents {
		if a.prompt != "" {
			prompts = append(prompts, a)
		}
	}
	if len(prompts)+len(p.subAgents) > 0 {
		b.WriteString("\nprompts: {\n")
		for _, a := range prompts {
			fmt.Fprintf(&b, "\t// From %s.\n\t%s: content: %s\n", a.b.Instructions, jsonText(a.name), literal.String.WithTabIndent(2).Quote(a.prompt))
		}
		for _, n := range slices.Sorted(maps.Keys(p.subAgents)) {
			fmt.Fprintf(&b, "\t// From %s.\n\t%s: content: %s\n", p.subAgents[n].found, jsonText(n), literal.String.WithTabIndent(2).Quote(p.subAgents[n].prompt))
		}
		b.WriteString("}\n")
	}
	b.WriteString("\ntemplates: {\n")
	for _, a := range p.agents {
		p.template(&b, a)
	}
	for _, n := range slices.Sorted(maps.Keys(p.subAgents)) {
		subAgentTemplate(&b, n, p.subAgents[n])
	}
	b.WriteString("}\n\nagents: {\n")
	for _, a := range p.agents {
		fmt.Fprintf(&b, "\t%s: template: %s\n", jsonText(a.name), jsonText(a.name))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// template writes a's template.
func (p *Plan) template(b *bytes.Buffer, a *agent) {
	n := a.name
	fmt.Fprintf(b, "\t%s: {\n\t\tbackend: %s\n", jsonText(n), jsonText(a.b.Name))
	var prompts []string
	if a.prompt != "" {
		prompts = append(prompts, n)
	}
	if prompts = append(prompts, a.also...); len(prompts) > 0 {
		fmt.Fprintf(b, "\t\tprompts: %s\n", jsonText(prompts))
	}
	if a.noHeading {
		b.WriteString("\t\theading: false\n")
	}
	if len(a.skills) > 0 {
		fmt.Fprintf(b, "\t\tskills: %s\n", jsonText(a.skills))
	}
	if len(a.commands) > 0 {
		fmt.Fprintf(b, "\t\tcommands: %s\n", jsonText(a.commands))
	}
	if len(a.subAgents) > 0 {
		fmt.Fprintf(b, "\t\tsubAgents: %s\n", jsonText(a.subAgents))
	}
	if len(a.mcp) > 0 {
		fmt.Fprintf(b, "\t\tmcpServers: %s\n", jsonText(a.mcp))
	}
	if a.perms != nil {
		fmt.Fprintf(b, "\t\tpermissions: %s\n", jsonText(permsValue(a.perms)))
	}
	if a.settings != nil {
		fmt.Fprintf(b, "\t\tsettings: %s: %s\n", jsonText(a.b.Name), jsonText(a.settings))
	}
	b.WriteString("\t}\n")
}

// subAgentTemplate writes the template of sub-agent n: its description,
// its one prompt (named like it) and its tools and model.
func subAgentTemplate(b *bytes.Buffer, n string, s *subAgentSrc) {
	fmt.Fprintf(b, "\t// A sub-agent, from %s.\n\t%s: {\n\t\tbackend: %s\n", s.found, jsonText(n), jsonText(s.backend))
	fmt.Fprintf(b, "\t\tdescription: %s\n\t\tprompts: %s\n", jsonText(s.desc), jsonText([]string{n}))
	if len(s.tools) > 0 || s.model != "" {
		sa := map[string]any{}
		switch {
		case s.own:
			sa["backends"] = map[string]any{s.backend: map[string]any{"tools": s.tools}}
		case len(s.tools) > 0:
			sa["tools"] = s.tools
		}
		if s.model != "" {
			sa["model"] = s.model
		}
		fmt.Fprintf(b, "\t\tsubAgent: %s\n", jsonText(sa))
	}
	b.WriteString("\t}\n")
}

// serverText is s as actant.cue spells it, in the order a server is read
// (type, command, args, env, url, headers), an empty args or env given
// kept (apply writes it back in Claude Code's .mcp.json).
func serverText(s schema.MCPServer) string {
	var fields []string
	add := func(k string, v any, present bool) {
		if present {
			fields = append(fields, jsonText(k)+": "+jsonText(v))
		}
	}
	add("type", s.Type, s.Type != "")
	add("command", s.Command, s.Command != "")
	add("args", s.Args, s.Args != nil)
	add("env", s.Env, s.Env != nil)
	add("url", s.URL, s.URL != "")
	add("headers", s.Headers, s.Headers != nil)
	// A field a line: the formatter closes an empty struct last on a
	// line of its own only then.
	return "{\n" + strings.Join(fields, "\n") + "\n}"
}

// permsValue is p as actant.cue spells it.
func permsValue(p *schema.Permissions) map[string]any {
	m := map[string]any{}
	if p.DefaultMode != "" {
		m["defaultMode"] = p.DefaultMode
	}
	for k, v := range map[string][]string{"allow": p.Allow, "deny": p.Deny, "ask": p.Ask, "additionalDirectories": p.AdditionalDirectories} {
		if len(v) > 0 {
			m[k] = v
		}
	}
	return m
}

// jsonText is v as JSON, which is CUE too (a JSON string has no "\(").
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // compact: the formatter puts each field on its line
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("importer: encode %T: %v", v, err)) // only JSON-decoded values and strings
	}
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
