package schema

import (
	"fmt"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/format"
)

// Explanation is the embedded schema's own account of one config field
// (`actctl explain FIELD`): its declared type, default and documentation
// comment, so that the schema's comments are the one source of truth.
type Explanation struct {
	// Field is the path as explained, a pattern's name shown as <name>:
	// "templates.<name>.permissions".
	Field    string `json:"field"`
	Optional bool   `json:"optional"`
	// Type is the field's declared CUE expression ("#Permissions",
	// "[...#Ref]"); Kind the kind of value it takes ("string|struct").
	Type string `json:"type"`
	Kind string `json:"kind"`
	// Default is the default in CUE syntax, "" when there is none.
	Default string `json:"default,omitempty"`
	Doc     string `json:"doc"`
	// Definition is the definition the type refers to, with its own
	// expression and documentation ("#Permissions").
	Definition     string `json:"definition,omitempty"`
	DefinitionType string `json:"definitionType,omitempty"`
	DefinitionDoc  string `json:"definitionDoc,omitempty"`
	// Fields are the fields of a struct value, in schema order.
	Fields []FieldDoc `json:"fields"`
}

// FieldDoc is one field of an explained struct: its name, declared type
// and the first sentence of its documentation.
type FieldDoc struct {
	Name     string `json:"name"`
	Optional bool   `json:"optional"`
	Type     string `json:"type"`
	Doc      string `json:"doc,omitempty"`
}

// Explain explains the config field at path (dot-separated, from the top
// level: "templates.permissions", "backends.files.mcp"); a map's entry may
// be named or left out ("templates.reviewer.permissions" is the same
// field). An empty path explains the top level.
func Explain(path string) (*Explanation, error) {
	root := cuecontext.New().CompileBytes(Source, cue.Filename(schemaFile))
	if err := root.Err(); err != nil {
		return nil, fmt.Errorf("embedded schema: %w", err)
	}
	v, parent, shown, optional := root, root, []string{}, false
	parts := strings.FieldsFunc(path, func(r rune) bool { return r == '.' })
	for i, part := range parts {
		if el, ok := elem(v); ok {
			v = el // a list of structs: its elements' fields
		}
		next, opt, ok := field(v, part)
		if !ok {
			pat := v.LookupPath(cue.MakePath(cue.AnyString))
			if !pat.Exists() {
				return nil, unknownField(v, strings.Join(shown, "."), part)
			}
			shown = append(shown, "<name>")
			if next, opt, ok = field(pat, part); !ok {
				// part names a map entry, unless it is the last part and
				// looks like a misspelled field of the entries or is a
				// field of a sibling map's entries.
				if i == len(parts)-1 {
					if err := nameOrField(parent, pat, shown[:len(shown)-1], part); err != nil {
						return nil, err
					}
				}
				parent, v, optional = v, pat, false
				continue
			}
		}
		parent, v, optional = v, next, opt
		shown = append(shown, part)
	}
	return explain(root, v, strings.Join(shown, "."), optional), nil
}

// nameOrField refuses name as the last word of a path in a name position
// (an entry of the map at, a field of parent, whose entries are pat) when
// it looks like a misspelled field of the entries, or is a field of the
// entries of a sibling map (templates.checkout: checkout is a field of
// agents.<name>). kubectl explain takes no names in a path; we take them,
// but never let one hide the field the user meant.
func nameOrField(parent, pat cue.Value, at []string, name string) error {
	entry := strings.Join(append(slices.Clone(at), "<name>"), ".")
	if Suggest(name, fieldNames(pat)) != "" {
		return unknownField(pat, entry, name)
	}
	own, prefix := at[len(at)-1], strings.Join(at[:len(at)-1], ".")
	if prefix != "" {
		prefix += "."
	}
	var meant []string
	it, err := parent.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	for it.Next() {
		sib := strings.TrimSuffix(it.Selector().String(), "?")
		spat := it.Value().LookupPath(cue.MakePath(cue.AnyString))
		if sib == own || !spat.Exists() {
			continue
		}
		if _, _, ok := field(spat, name); ok {
			meant = append(meant, prefix+sib+".<name>."+name)
		}
	}
	if len(meant) == 0 {
		return nil
	}
	return fmt.Errorf("no field %q in %s: did you mean %s? (a name there explains %s, the same for every entry)",
		name, entry, strings.Join(meant, " or "), entry)
}

// elem is the element of a list of structs (templates.schedule.cron),
// whose fields a path names after the list's.
func elem(v cue.Value) (cue.Value, bool) {
	if v.IncompleteKind()&cue.ListKind == 0 {
		return cue.Value{}, false
	}
	el := v.LookupPath(cue.MakePath(cue.AnyIndex))
	if !el.Exists() || el.IncompleteKind()&cue.StructKind == 0 {
		return cue.Value{}, false
	}
	return el, true
}

// field looks up the field name that v declares (regular or optional),
// never a pattern's value for that name.
func field(v cue.Value, name string) (cue.Value, bool, bool) {
	if v.IncompleteKind()&cue.StructKind == 0 {
		return cue.Value{}, false, false
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return cue.Value{}, false, false
	}
	for it.Next() {
		if strings.TrimSuffix(it.Selector().String(), "?") == name {
			return it.Value(), it.IsOptional(), true
		}
	}
	return cue.Value{}, false, false
}

func fieldNames(v cue.Value) []string {
	var names []string
	for _, f := range fields(v) {
		names = append(names, f.Name)
	}
	return names
}

// unknownField says which fields there are where name was looked for.
func unknownField(v cue.Value, at, name string) error {
	names := fieldNames(v)
	where := "at the top level"
	if at != "" {
		where = "in " + at
	}
	msg := fmt.Sprintf("no field %q %s", name, where)
	if s := Suggest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(names) > 0 {
		msg += "; its fields: " + strings.Join(names, ", ")
	}
	return fmt.Errorf("%s", msg)
}

func explain(root, v cue.Value, path string, optional bool) *Explanation {
	e := &Explanation{Field: path, Optional: optional, Type: declared(v), Kind: v.IncompleteKind().String(),
		Doc: docOf(v), Fields: fields(v)}
	if path == "" {
		e.Field, e.Type, e.Kind = "(top level)", "the workspace config (package actant)", "struct"
		e.Doc = "The fields of actant.cue; `actctl explain FIELD` explains one (e.g. templates.permissions)."
	}
	if d, ok := v.Default(); ok {
		e.Default = oneLine(expr(d.Syntax(cue.Final(), cue.Concrete(true))))
	}
	if pat := v.LookupPath(cue.MakePath(cue.AnyString)); len(e.Fields) == 0 && pat.Exists() {
		// A map: its entries' fields.
		e.Fields = fields(pat)
	}
	if el, ok := elem(v); ok && len(e.Fields) == 0 {
		e.Fields = fields(el)
	}
	if _, ref := v.ReferencePath(); len(ref.Selectors()) == 1 && ref.Selectors()[0].IsDefinition() {
		def := root.LookupPath(ref)
		e.Definition, e.DefinitionType, e.DefinitionDoc = ref.String(), declaredDef(def), docOf(def)
	}
	return e
}

// fields lists the regular and optional fields of a struct value.
func fields(v cue.Value) []FieldDoc {
	out := []FieldDoc{}
	if v.IncompleteKind()&cue.StructKind == 0 {
		return out
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return out
	}
	for it.Next() {
		name := strings.TrimSuffix(it.Selector().String(), "?")
		out = append(out, FieldDoc{Name: name, Optional: it.IsOptional(), Type: declared(it.Value()), Doc: firstSentence(docOf(it.Value()))})
	}
	return out
}

// declared is the expression a field was declared with, as written in the
// schema ("#Permissions", "*[] | [...#Ref]"); for a value without a
// declaration of its own, its kind.
func declared(v cue.Value) string {
	switch n := v.Source().(type) {
	case *ast.Field:
		return oneLine(expr(n.Value))
	case ast.Expr:
		if s := expr(n); s != "" && !strings.Contains(s, "\n") {
			return s
		}
	}
	return v.IncompleteKind().String()
}

// oneLine puts a short expression on one line ("{[string]: #Template}");
// a long one keeps its lines.
func oneLine(s string) string {
	if one := strings.Join(strings.Fields(s), " "); len(one) <= 100 {
		return strings.ReplaceAll(strings.ReplaceAll(one, "{ ", "{"), " }", "}")
	}
	return s
}

// declaredDef is a definition's expression (its whole body).
func declaredDef(v cue.Value) string {
	if f, ok := v.Source().(*ast.Field); ok {
		return expr(f.Value)
	}
	return v.IncompleteKind().String()
}

// expr formats a CUE node without its comment lines (the node is the
// schema's own: it is formatted, never changed).
func expr(n ast.Node) string {
	if n == nil {
		return ""
	}
	b, err := format.Node(n)
	if err != nil {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			lines = append(lines, l)
		}
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// docOf joins the documentation comments attached to v.
func docOf(v cue.Value) string {
	var parts []string
	for _, g := range v.Doc() {
		if t := strings.TrimSpace(g.Text()); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(slices.Compact(parts), "\n\n")
}

// firstSentence is the text up to the first ". " or the end of the first
// paragraph, on one line.
func firstSentence(doc string) string {
	doc, _, _ = strings.Cut(doc, "\n\n")
	doc = strings.Join(strings.Fields(doc), " ")
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i+1]
	}
	return doc
}
