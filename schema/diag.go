package schema

import (
	"fmt"
	"path/filepath"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/token"
)

// Diagnostic is one problem found in the configuration, with the position
// of the offending field when one is known.
type Diagnostic struct {
	// Pos is the position in the user's files; token.NoPos when unknown.
	Pos token.Pos `json:"-"`
	// Path is the CUE path of the field, e.g. "agents.reviewer.template".
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	// Warning diagnostics are printed but do not fail validation.
	Warning bool `json:"warning,omitempty"`
}

// String formats the diagnostic as "file:line:col: path: message".
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Pos.IsValid() {
		fmt.Fprintf(&b, "%s:%d:%d: ", d.Pos.Filename(), d.Pos.Line(), d.Pos.Column())
	}
	if d.Warning {
		b.WriteString("warning: ")
	}
	if d.Path != "" {
		b.WriteString(d.Path)
		b.WriteString(": ")
	}
	b.WriteString(d.Message)
	return b.String()
}

// Diagnostics is a list of problems; as an error it reports the errors
// (not the warnings) one per line.
type Diagnostics []Diagnostic

func (ds Diagnostics) Error() string {
	var lines []string
	for _, d := range ds {
		if !d.Warning {
			lines = append(lines, d.String())
		}
	}
	return strings.Join(lines, "\n")
}

// Errors returns the diagnostics that are not warnings.
func (ds Diagnostics) Errors() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if !d.Warning {
			out = append(out, d)
		}
	}
	return out
}

// Warnings returns the diagnostics that are warnings.
func (ds Diagnostics) Warnings() Diagnostics {
	var out Diagnostics
	for _, d := range ds {
		if d.Warning {
			out = append(out, d)
		}
	}
	return out
}

// Pos returns the position of the field at path (CUE path syntax, see
// Path) in the user's files, or of its closest parent that has one;
// token.NoPos if none.
func (c *Config) Pos(path string) token.Pos {
	// Paths built with Path are recorded verbatim: no parse needed.
	if pos, ok := c.pos[path]; ok && pos.IsValid() {
		return pos
	}
	p := cue.ParsePath(path)
	if p.Err() != nil {
		return token.NoPos
	}
	sel := p.Selectors()
	for n := len(sel); n > 0; n-- {
		key := cue.MakePath(sel[:n]...).String()
		if n == len(sel) {
			key = path // keep list indexes such as skills[0]
		}
		if pos, ok := c.pos[key]; ok && pos.IsValid() {
			return pos
		}
		if c.value.Exists() {
			if v := c.value.LookupPath(cue.MakePath(sel[:n]...)); v.Exists() {
				if pos := v.Pos(); pos.IsValid() && filepath.Base(pos.Filename()) != schemaFile {
					return pos
				}
			}
		}
	}
	return token.NoPos
}

// Where is the position of the field at path (Pos) as file:line:col,
// the file relative to the root when it is inside it; "" when the config
// holds no position for it.
func (c *Config) Where(path string) string {
	pos := c.Pos(path)
	if !pos.IsValid() {
		return ""
	}
	name := pos.Filename()
	if rel, ok := RelWithin(c.Root, name); ok {
		name = rel
	}
	return fmt.Sprintf("%s:%d:%d", name, pos.Line(), pos.Column())
}

// SetPos records the position of a field; used by the hub when it merges
// components (pointing at the hub's source file). path must be in the
// canonical form Path returns.
func (c *Config) SetPos(path string, pos token.Pos) {
	if c.pos == nil {
		c.pos = map[string]token.Pos{}
	}
	// Paths made by Path are already canonical, and parsing costs ~10us a
	// call (hubs merge thousands of components): store them as given.
	c.pos[path] = pos
}

// Diag makes an error diagnostic at the position of path.
func (c *Config) Diag(path, format string, args ...any) Diagnostic {
	return Diagnostic{Pos: c.Pos(path), Path: path, Message: fmt.Sprintf(format, args...)}
}
