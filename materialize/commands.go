package materialize

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/actctl/actctl/internal/frontmatter"
	"github.com/actctl/actctl/schema"
)

// commands writes one file per command of the template (slash commands,
// docs/formats.md "Commands"). The content is the prompt the tool sends;
// {{var}} placeholders the template's vars define are filled, every other
// placeholder ($ARGUMENTS, $1, Gemini's {{args}}) is the tool's own and
// passes through untouched, without a warning.
func (rd *renderer) commands(f schema.Files) error {
	r := rd.r
	if len(r.Template.Commands) == 0 {
		return nil
	}
	if f.Commands == nil {
		rd.warn("backend %q has no commands layout: commands %s of template %q are not rendered", r.BackendName, strings.Join(r.Template.Commands, ", "), r.TemplateName)
		return nil
	}
	for _, ref := range r.Template.Commands {
		c, ok := rd.cfg.Commands[ref]
		if !ok {
			return fmt.Errorf("command %q is not declared", ref)
		}
		name := diskName(ref)
		body, _ := fillVars(c.Content, r.Vars)
		desc, _ := fillVars(c.Description, r.Vars)
		p, content, err := commandFile(f.Commands, name, desc, body)
		if err != nil {
			return fmt.Errorf("backend %q: %w", r.BackendName, err)
		}
		if err := rd.addFile(p, content, "command "+strconv.Quote(ref)); err != nil {
			return err
		}
	}
	return nil
}

// commandFile renders one command in the layout's format and returns its
// path and bytes. The layout's ext, when set, replaces the format's own
// file ending (".prompt.md" for Copilot's prompt files).
func commandFile(l *schema.DirLayout, name, desc, body string) (string, []byte, error) {
	switch l.Format {
	case schema.FormatMarkdown:
		// Claude Code .claude/commands, Pi .pi/prompts, Cursor
		// .cursor/commands, Copilot .github/prompts, OpenCode
		// .opencode/commands: optional frontmatter description, then
		// the prompt.
		p := joinRel(l.Dir, name+extOr(l, ".md"))
		if strings.TrimSpace(desc) == "" {
			return p, []byte(ensureNL(body)), nil
		}
		return p, frontmatter.Lines([]frontmatter.Line{{Key: "description", Value: frontmatter.Scalar(desc)}}, body), nil
	case schema.FormatPlain:
		// Plain Markdown, the prompt only (no built-in uses it).
		return joinRel(l.Dir, name+extOr(l, ".md")), []byte(ensureNL(body)), nil
	case schema.FormatGeminiCommand:
		b, err := geminiCommand(desc, body)
		return joinRel(l.Dir, name+extOr(l, ".toml")), b, err
	case schema.FormatSkillDir:
		if l.Ext != "" {
			return "", nil, fmt.Errorf("commands format skill writes <dir>/<name>/SKILL.md: ext %q does not apply", l.Ext)
		}
		// Antigravity: a command is a skill invoked as /name.
		if strings.TrimSpace(desc) == "" {
			desc = firstLine(body)
		}
		if desc == "" {
			desc = name
		}
		return joinRel(l.Dir, name) + "/SKILL.md", frontmatter.Render(nil, []frontmatter.Field{{Key: "name", Value: name}, {Key: "description", Value: desc}}, body), nil
	}
	return "", nil, fmt.Errorf("unknown commands format %q (want markdown, plain, gemini or skill)", l.Format)
}

// extOr is the layout's file ending, or def when it sets none.
func extOr(l *schema.DirLayout, def string) string {
	if l.Ext != "" {
		return l.Ext
	}
	return def
}

// geminiCommand is a Gemini CLI custom command (.gemini/commands/<n>.toml,
// TOML v1): prompt (required) and description (optional).
func geminiCommand(desc, prompt string) ([]byte, error) {
	v := struct {
		Description string `toml:"description,omitempty"`
		Prompt      string `toml:"prompt,multiline"`
	}{desc, ensureNL(prompt)}
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode gemini command: %w", err)
	}
	return b.Bytes(), nil
}
