package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"cuelang.org/go/cue/scanner"
	"cuelang.org/go/cue/token"
)

// validatePrompts checks that a prompt which declares its variables uses
// no others: a placeholder outside the list ({{servce}} for {{service}})
// is an error at the placeholder, where it would otherwise be written
// literally into the agent's instructions. A prompt without a variables
// list is not checked here; materialize warns of placeholders no template
// var fills (README, the list of checks).
func (c *Config) validatePrompts() Diagnostics {
	var ds Diagnostics
	for _, name := range localKeys(c.Prompts) {
		p := c.Prompts[name]
		if p.Variables == nil {
			continue
		}
		path := Path("prompts", name, "content")
		for _, ph := range placeholders(p.Content) {
			if slices.Contains(p.Variables, ph) {
				continue
			}
			msg := fmt.Sprintf("placeholder {{%s}} is not among the prompt's variables", ph)
			switch s := suggest(ph, p.Variables); {
			case s != "":
				msg += fmt.Sprintf(" (did you mean {{%s}}?)", s)
			case len(p.Variables) == 0:
				msg += " (it declares none): add it to variables, or remove it"
			default:
				msg += fmt.Sprintf(" (%s): add it to variables, or correct it", strings.Join(p.Variables, ", "))
			}
			ds = append(ds, Diagnostic{Pos: c.placeholderPos(path, ph), Path: path, Message: msg})
		}
	}
	return ds
}

// placeholders are the names of the {{name}} placeholders of s (spaces
// inside the braces allowed), in order of first appearance. As when they
// are filled (materialize), only identifier-like names are variables;
// "{{ .Field }}" or "{{#each}}" are other template syntaxes.
func placeholders(s string) []string {
	var out []string
	for _, m := range placeholderRE().FindAllStringSubmatch(s, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

var placeholderRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}`)
})

// placeholderPos is the position of the first {{name}} inside the string
// literal of the field at path, or the field's own position when the
// value is not a literal written there.
func (c *Config) placeholderPos(path, name string) token.Pos {
	pos := c.Pos(path)
	if !pos.IsValid() {
		return pos
	}
	src, err := ReadRegular(pos.Filename(), 0)
	if err != nil || pos.Offset() >= len(src) {
		return pos
	}
	var s scanner.Scanner
	s.Init(token.NewFile(pos.Filename(), -1, len(src)-pos.Offset()), src[pos.Offset():], nil, 0)
	_, tok, lit := s.Scan()
	re := regexp.MustCompile(`\{\{\s*` + regexp.QuoteMeta(name) + `\s*\}\}`)
	loc := re.FindStringIndex(lit)
	if tok != token.STRING || loc == nil {
		return pos
	}
	f := token.NewFile(pos.Filename(), -1, len(src))
	f.SetLinesForContent(src)
	return f.Pos(pos.Offset()+loc[0], token.NoRelPos)
}
