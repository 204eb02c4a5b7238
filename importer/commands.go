package importer

import (
	"bytes"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"

	"github.com/actctl/actctl/internal/frontmatter"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// commandSrc is a command taken into the config, and where it was found.
type commandSrc struct {
	c     schema.SlashCommand
	found string
}

// scanCommands takes each command file of a's commands directory that
// apply writes back byte for byte.
func (p *Plan) scanCommands(a *agent) error {
	l := a.b.Commands
	if l == nil {
		return nil
	}
	ents := p.readDir(a, "command", l.Dir)
	ext := ".md"
	switch {
	case l.Ext != "":
		ext = l.Ext
	case l.Format == schema.FormatGeminiCommand:
		ext = ".toml"
	}
	for _, e := range ents {
		rel := path.Join(l.Dir, e.Name())
		name := strings.TrimSuffix(e.Name(), ext)
		it := Item{Backend: a.b.Name, Kind: "command", Name: name, Path: rel}
		switch {
		case e.IsDir():
			p.leave(it, "a directory of commands (/%s:...); actctl writes one file per command", e.Name())
		case !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ext):
			p.leave(it, "not a %s command file; left as it is", ext)
		default:
			p.command(a, it)
		}
	}
	return nil
}

// command takes one command file, or says why not.
func (p *Plan) command(a *agent, it Item) {
	if !nameRe.MatchString(it.Name) {
		p.leave(it, "the name is not a valid actctl name (%s)", nameRe)
		return
	}
	if other, ok := p.claimFor(a, it.Path); !ok {
		p.leave(it, "%s", sameAs(other))
		return
	}
	text, err := p.read(it.Path)
	if err != nil {
		p.leave(it, "cannot read it (%v)", err)
		return
	}
	if !utf8.Valid(text) {
		p.leave(it, "%v", errNotUTF8)
		return
	}
	c, why := readCommand(a.b.Commands.Format, text)
	if why != "" {
		p.leave(it, "%s", why)
		return
	}
	_, want, err := materialize.CommandFile(a.b.Commands, it.Name, c.Description, c.Content)
	switch {
	case err != nil:
		p.leave(it, "%v", err)
		return
	case !bytes.Equal(want, text):
		p.leave(it, "not byte for byte what apply writes for it (apply writes the description and the prompt only, its own way): %s", firstDiff(text, want))
		return
	}
	if prev, ok := p.commands[it.Name]; ok && prev.c != c {
		p.leave(it, "a different command of the same name was taken from %s", prev.found)
		return
	} else if !ok {
		p.commands[it.Name] = &commandSrc{c: c, found: it.Path}
	}
	a.commands = append(a.commands, it.Name)
	p.take(it)
}

// readCommand reads a command file back as a description and a prompt;
// why says what else it holds.
func readCommand(format string, text []byte) (schema.SlashCommand, string) {
	var c schema.SlashCommand
	switch format {
	case schema.FormatGeminiCommand:
		var m map[string]any
		if err := toml.Unmarshal(text, &m); err != nil {
			return c, fmt.Sprintf("not TOML: %v", err)
		}
		for k, v := range m {
			s, ok := v.(string)
			switch {
			case !ok:
				return c, fmt.Sprintf("%s is not a string", k)
			case k == "description":
				c.Description = s
			case k == "prompt":
				c.Content = s
			default:
				return c, fmt.Sprintf("holds %q, which actctl does not write (description and prompt only)", k)
			}
		}
		return c, ""
	case schema.FormatMarkdown:
		meta, body, err := frontmatter.Split(string(text))
		if err != nil {
			return c, fmt.Sprintf("frontmatter: %v", err)
		}
		for _, k := range meta.Keys() {
			if k != "description" {
				return c, fmt.Sprintf("frontmatter holds %q, which actctl does not write (description only)", k)
			}
		}
		desc, _, err := meta.Text("description")
		if err != nil {
			return c, fmt.Sprintf("frontmatter: %v", err)
		}
		c.Description, c.Content = desc, body
		return c, ""
	}
	c.Content = string(text)
	return c, ""
}
