package schema

import (
	"fmt"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/token"
)

// missingFields rewrites CUE's "incomplete value" errors, each at its
// field in the user's files: on a field written without a complete value
// (`ref: {}`), "incomplete: want" and the type; on fields the user never
// wrote (a required field left out: CUE places them in the
// embedded schema, a file the user does not have) in actctl's words, at
// the nearest enclosing field of the user's files: `agents.nightlly:
// missing required field "template"`. Where the entry missing a field
// of its own has a near name among its siblings (or, for an agent, among
// the templates), the diagnostic asks whether that name was meant: a
// misspelled name starts a new entry that lacks everything.
func (c *Config) missingFields(ds Diagnostics) Diagnostics {
	out := slices.Clone(ds)
	for i, d := range out {
		want, ok := strings.CutPrefix(d.Message, "incomplete value ")
		if !ok {
			continue
		}
		if c.written(d.Path) {
			// Written, but not a value: `ref: {}` for one of {tag}, ...
			if !d.Pos.IsValid() || inSchema(d.Pos) {
				out[i].Pos = c.Pos(d.Path)
			}
			out[i].Message = "incomplete: want " + want
			continue
		}
		sel := cue.ParsePath(d.Path).Selectors()
		if len(sel) < 2 {
			continue
		}
		parent := cue.MakePath(sel[:len(sel)-1]...).String()
		out[i] = Diagnostic{
			Pos:     c.Pos(parent),
			Path:    parent,
			Message: fmt.Sprintf("missing required field %q", sel[len(sel)-1].Unquoted()),
		}
		if len(sel) == 3 {
			out[i].Message += c.nearEntry(sel[0].Unquoted(), sel[1].Unquoted())
		}
	}
	out.Sort()
	return out
}

// written reports whether the field at path is written in the user's
// files.
func (c *Config) written(path string) bool {
	pos, ok := c.pos[path]
	return ok && pos.IsValid() && !inSchema(pos)
}

// inSchema reports whether pos is in the embedded schema.
func inSchema(pos token.Pos) bool {
	return strings.HasSuffix(pos.Filename(), schemaFile)
}

// nearEntry is " (did you mean "x"?)" when the entry name of the map top
// is near another entry's name there (for agents, also a template's),
// else "".
func (c *Config) nearEntry(top, name string) string {
	maps := []string{top}
	if top == "agents" {
		maps = append(maps, "templates")
	}
	var names []string
	for _, m := range maps {
		it, err := c.value.LookupPath(cue.MakePath(cue.Str(m))).Fields()
		for err == nil && it.Next() {
			if n := it.Selector().Unquoted(); n != name || m != top {
				names = append(names, n)
			}
		}
	}
	if s := suggest(name, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
