package schema

import (
	"sort"
	"strconv"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/token"
)

// recordPositions walks the user's files and records where each field is
// written, so that diagnostics raised on the decoded config point into the
// user's files: at the value for scalars and list elements, at the label
// for structs. The evaluated value cannot give this reliably, since a
// unified field's position may be the schema's.
func (c *Config) recordPositions(files []*ast.File) {
	for _, f := range files {
		c.walkDecls(nil, f.Decls)
	}
}

func (c *Config) walkDecls(prefix []cue.Selector, decls []ast.Decl) {
	for _, d := range decls {
		f, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		name, ok := labelName(f.Label)
		if !ok {
			continue
		}
		path := append(append([]cue.Selector(nil), prefix...), cue.Str(name))
		c.walkValue(path, f.Label.Pos(), f.Value)
	}
}

func (c *Config) walkValue(path []cue.Selector, label token.Pos, v ast.Expr) {
	key := cue.MakePath(path...).String()
	switch x := v.(type) {
	case *ast.StructLit:
		c.setPosOnce(key, label)
		c.walkDecls(path, x.Elts)
	case *ast.ListLit:
		c.setPosOnce(key, x.Pos())
		for i, e := range x.Elts {
			c.setPosOnce(key+"["+strconv.Itoa(i)+"]", e.Pos())
		}
	default:
		c.setPosOnce(key, v.Pos())
	}
}

func (c *Config) setPosOnce(key string, pos token.Pos) {
	if c.pos == nil {
		c.pos = map[string]token.Pos{}
	}
	if _, ok := c.pos[key]; !ok && pos.IsValid() {
		c.pos[key] = pos
	}
}

// labelName returns the name of a regular field label.
func labelName(l ast.Label) (string, bool) {
	switch x := l.(type) {
	case *ast.Ident:
		if len(x.Name) > 0 && (x.Name[0] == '#' || x.Name[0] == '_') {
			return "", false
		}
		return x.Name, true
	case *ast.BasicLit:
		if x.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(x.Value)
		if err != nil {
			return "", false
		}
		return s, true
	}
	return "", false
}

// Sort orders diagnostics by file, line and column, positionless last.
func (ds Diagnostics) Sort() {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i].Pos, ds[j].Pos
		if a.IsValid() != b.IsValid() {
			return a.IsValid()
		}
		if !a.IsValid() {
			return false
		}
		if a.Filename() != b.Filename() {
			return a.Filename() < b.Filename()
		}
		return a.Offset() < b.Offset()
	})
}
