package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/actctl/actctl/internal/frontmatter"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
	"github.com/pelletier/go-toml/v2"
)

// subAgentSrc is a sub-agent taken into the config: a template of its own
// (description, one prompt, subAgent tools and model) that the agent's
// template lists in subAgents, and where it was found.
type subAgentSrc struct {
	desc, prompt string
	tools        []string
	model        string
	backend      string
	found        string
	// own: the tools are the backend's own names (Gemini CLI's,
	// Copilot's, Antigravity's), written
	// as subAgent: backends: <backend>: tools.
	own bool
}

// scanSubAgents takes each sub-agent file of a's backend (Backend.SubAgents:
// Claude Code's .claude/agents/<n>.md, Cursor's .cursor/agents/<n>.md,
// Gemini CLI's .gemini/agents/<n>.md) that apply writes back byte for
// byte, as a sub-agent template (docs/import.md).
func (p *Plan) scanSubAgents(a *agent) error {
	if l := a.b.SubAgents; l != nil {
		p.scanFiles(a, l, "sub-agent", subAgentExt(l), p.subAgent)
	}
	return nil
}

// subAgentExt is the ending of a sub-agent file in layout l.
func subAgentExt(l *schema.DirLayout) string {
	switch {
	case l.Ext != "":
		return l.Ext
	case l.Format == schema.FormatCopilotSub:
		return ".agent.md"
	case l.Format == schema.FormatCodexSub:
		return ".toml"
	}
	return ".md"
}

// subAgent takes one sub-agent file, or says why not.
func (p *Plan) subAgent(a *agent, it Item) {
	switch {
	case !nameRe.MatchString(it.Name):
		p.leave(it, "the name is not a valid actctl name (%s)", nameRe)
		return
	case p.nameTaken(it.Name):
		p.leave(it, "an agent, template or prompt of the imported config is named %q too", it.Name)
		return
	}
	if other, ok := p.claimFor(a, it.Path); !ok {
		p.leave(it, "%s", sameAs(other))
		return
	}
	text, err := p.read(it.Path)
	switch {
	case err != nil:
		p.leave(it, "cannot read it (%v)", err)
		return
	case !utf8.Valid(text):
		p.leave(it, "%v", errNotUTF8)
		return
	}
	var s *subAgentSrc
	var why string
	switch a.b.SubAgents.Format {
	case schema.FormatGeminiSub:
		s, why = readListSubAgent(it.Name, string(text), true)
	case schema.FormatCopilotSub, schema.FormatAntigravitySub:
		s, why = readListSubAgent(it.Name, string(text), false)
	case schema.FormatCodexSub:
		s, why = readCodexSubAgent(it.Name, text)
	case schema.FormatOpenCodeSub:
		s, why = readOpenCodeSubAgent(string(text))
	default:
		s, why = readSubAgent(it.Name, string(text))
	}
	if why != "" {
		p.leave(it, "%s", why)
		return
	}
	s.backend, s.found = a.b.Name, it.Path
	_, want, err := materialize.SubAgentFile(a.b.SubAgents, a.b.Name, it.Name, s.desc, s.prompt, s.subAgent())
	switch {
	case err != nil:
		p.leave(it, "%v", err)
		return
	case !bytes.Equal(want, text):
		p.leave(it, "not byte for byte what apply writes for it (name, description, tools, model, then the prompt, its own way): %s", firstDiff(text, want))
		return
	}
	p.subAgents[it.Name] = s
	a.subAgents = append(a.subAgents, it.Name)
	p.take(it)
}

// subAgent is s's subAgent value as the imported config spells it: its
// own tools under backends, the common ones as tools; nil for none.
func (s *subAgentSrc) subAgent() *schema.SubAgent {
	if len(s.tools) == 0 && s.model == "" {
		return nil
	}
	sa := &schema.SubAgent{Model: s.model}
	if s.own {
		sa.Backends = map[string]schema.SubAgentNative{s.backend: {Tools: s.tools}}
	} else {
		sa.Tools = s.tools
	}
	return sa
}

// nameTaken reports whether name is already an agent's (and its
// template's and prompt's) or another sub-agent's name.
func (p *Plan) nameTaken(name string) bool {
	if _, ok := p.subAgents[name]; ok {
		return true
	}
	for _, b := range Backends {
		if b.Name == name {
			return true
		}
	}
	for _, a := range p.agents {
		if a.name == name {
			return true
		}
	}
	return false
}

// readSubAgent reads a Claude Code sub-agent file back; why says what
// else it holds than what apply writes (name, description, tools, model).
func readSubAgent(name, text string) (*subAgentSrc, string) {
	meta, body, err := frontmatter.Split(text)
	if err != nil || meta == nil {
		return nil, "no frontmatter with a name and a description"
	}
	s, why := readSubAgentKeys(name, meta, meta.Keys())
	if why != "" {
		return nil, why
	}
	s.prompt = body
	return s, ""
}

// readSubAgentKeys reads the frontmatter keys keys of a sub-agent (name,
// description, tools comma-separated, model); why names another key.
func readSubAgentKeys(name string, meta *frontmatter.Doc, keys []string) (*subAgentSrc, string) {
	s := &subAgentSrc{}
	for _, k := range keys {
		v, _, err := meta.Text(k)
		if err != nil {
			return nil, "frontmatter: " + err.Error()
		}
		switch k {
		case "name":
			if v != name {
				return nil, "its name " + v + " is not its file's"
			}
		case "description":
			s.desc = v
		case "tools":
			s.tools = splitGlobs(v)
		case "model":
			s.model = v
		default:
			return nil, "frontmatter holds " + k + ", which import does not take (name, description, tools, model)"
		}
	}
	return s, ""
}

// readListSubAgent reads back a sub-agent file whose tools are a list of
// the tool's own names, JSON-quoted as apply writes them: Gemini CLI's
// (name, description, kind: local, tools, model; local, when true, says
// kind must be there and be local) or GitHub Copilot's (name,
// description, tools, model).
func readListSubAgent(name, text string, local bool) (*subAgentSrc, string) {
	text, list := cutKey(text, "tools:")
	var tools []string
	if list != "" {
		if err := json.Unmarshal([]byte(list), &tools); err != nil {
			return nil, "tools is not a list of double-quoted names, as apply writes it"
		}
	}
	meta, body, err := frontmatter.Split(text)
	if err != nil || meta == nil {
		return nil, "no frontmatter with a name and a description"
	}
	keys := meta.Keys()
	if local {
		if kind, _, err := meta.Text("kind"); err != nil || kind != "local" {
			return nil, "not a local agent (kind: local); a remote agent is left as it is"
		}
		keys = slices.DeleteFunc(keys, func(k string) bool { return k == "kind" })
	}
	s, why := readSubAgentKeys(name, meta, keys)
	if why != "" {
		return nil, why
	}
	s.prompt, s.tools, s.own = body, tools, len(tools) > 0
	return s, ""
}

// cutKey takes the frontmatter line "key ..." out of text and returns the
// text without it and the line's value.
func cutKey(text, key string) (string, string) {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		if i > 0 && strings.TrimRight(l, "\r\n") == "---" {
			break
		}
		if v, ok := strings.CutPrefix(l, key); ok && i > 0 {
			return strings.Join(append(lines[:i:i], lines[i+1:]...), ""), strings.TrimSpace(v)
		}
	}
	return text, ""
}

// readCodexSubAgent reads a Codex custom agent back (name, description,
// model, developer_instructions); why names what else it holds (a
// sandbox_mode, which apply writes from permissions, is left too).
func readCodexSubAgent(name string, text []byte) (*subAgentSrc, string) {
	var v struct {
		Name         string `toml:"name"`
		Description  string `toml:"description"`
		Model        string `toml:"model"`
		Instructions string `toml:"developer_instructions"`
	}
	dec := toml.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		var strict *toml.StrictMissingError
		if errors.As(err, &strict) {
			var keys []string
			for _, e := range strict.Errors {
				keys = append(keys, strings.Join(e.Key(), "."))
			}
			return nil, "it holds " + strings.Join(keys, ", ") + ", which import does not take (name, description, model, developer_instructions)"
		}
		return nil, "not TOML: " + err.Error()
	}
	if v.Name != name {
		return nil, "its name " + v.Name + " is not its file's"
	}
	return &subAgentSrc{desc: v.Description, model: v.Model, prompt: v.Instructions}, ""
}

// readOpenCodeSubAgent reads an OpenCode agent back (description, mode:
// subagent, model; the file's name is the agent's); why names what else
// it holds. A primary agent is no sub-agent: left.
func readOpenCodeSubAgent(text string) (*subAgentSrc, string) {
	meta, body, err := frontmatter.Split(text)
	if err != nil || meta == nil {
		return nil, "no frontmatter with a description and mode: subagent"
	}
	if mode, _, err := meta.Text("mode"); err != nil || mode != "subagent" {
		return nil, "not a sub-agent (mode: subagent); a primary agent is left as it is"
	}
	s := &subAgentSrc{prompt: body}
	for _, k := range meta.Keys() {
		v, _, err := meta.Text(k)
		switch {
		case err != nil:
			return nil, "frontmatter: " + err.Error()
		case k == "description":
			s.desc = v
		case k == "model":
			s.model = v
		case k != "mode":
			return nil, "frontmatter holds " + k + ", which import does not take (description, mode, model)"
		}
	}
	return s, ""
}
