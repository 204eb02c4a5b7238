package hub

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"github.com/actctl/actctl/schema"
)

// cueKinds are the top-level fields a CUE hub may declare.
var cueKinds = map[string]struct{ def, kind string }{
	"skills":     {"#Skill", KindSkill},
	"prompts":    {"#Prompt", KindPrompt},
	"mcpServers": {"#MCPServer", KindMCP},
	"templates":  {"#Template", KindTemplate},
	"backends":   {"#Backend", KindBackend},
}

var (
	// cueMu serializes CUE hub evaluation: a cue.Context is not safe for
	// concurrent use.
	cueMu      sync.Mutex
	schemaOnce sync.Once
	schemaVal  cue.Value
	cueCtx     *cue.Context
)

// schemaDefs compiles the embedded workspace schema once; CUE hub
// components are unified with its definitions so they get the same
// defaults and the same validation as components declared locally.
func schemaDefs() cue.Value {
	schemaOnce.Do(func() {
		cueCtx = cuecontext.New()
		schemaVal = cueCtx.CompileBytes(schema.Source, cue.Filename("actctl-schema.cue"))
	})
	return schemaVal
}

// readCUE reads a CUE hub: the *.cue files of package actant at the root
// of the tree, evaluated on their own (no imports: a hub is data, and
// nothing outside its tree is loaded). Each component is unified with the
// schema definition of its kind.
func (r *reader) readCUE() {
	cueMu.Lock()
	defer cueMu.Unlock()
	defs := schemaDefs()
	inst := r.parseCUE()
	if len(r.ds) > 0 {
		return
	}
	v := cueCtx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		r.cueErrors(err)
		return
	}
	it, err := v.Fields()
	if err != nil {
		r.cueErrors(err)
		return
	}
	for it.Next() {
		field := it.Selector().Unquoted()
		k, ok := cueKinds[field]
		if !ok {
			r.ds = append(r.ds, schema.Diagnostic{Pos: it.Value().Pos(), Path: field,
				Message: fmt.Sprintf("a CUE hub may declare only skills, prompts, mcpServers, templates and backends, not %q", field)})
			continue
		}
		def := defs.LookupPath(cue.ParsePath(k.def))
		comps, err := it.Value().Fields()
		if err != nil {
			r.cueErrors(err)
			continue
		}
		for comps.Next() {
			r.cueComponent(field, k.kind, comps.Selector().Unquoted(), comps.Value(), def)
		}
	}
}

// parseCUE parses the root's *.cue files into one instance: each must be
// package actant and import nothing (every problem is a diagnostic).
func (r *reader) parseCUE() *build.Instance {
	names, _ := fs.Glob(r.fsys, "*.cue")
	sort.Strings(names)
	inst := build.NewContext().NewInstance("", nil)
	for _, n := range names {
		data, err := r.read(n)
		if err != nil {
			r.errorf(n, 0, "read %s: %v", r.display(n), err)
			continue
		}
		f, err := parser.ParseFile(r.display(n), data, parser.ParseComments)
		if err != nil {
			r.cueErrors(err)
			continue
		}
		if f.PackageName() != "actant" {
			r.errorf(n, 0, "%s: a CUE hub file must be `package actant`", r.display(n))
			continue
		}
		for imp := range f.ImportSpecs() {
			r.ds = append(r.ds, schema.Diagnostic{Pos: imp.Pos(), Message: "imports are not allowed in a CUE hub (a hub is self-contained data)"})
		}
		if err := inst.AddSyntax(f); err != nil {
			r.cueErrors(err)
		}
	}
	return inst
}

// cueComponent reads the component name of kind (under field) from the
// CUE hub's value v, unified with its schema definition def.
func (r *reader) cueComponent(field, kind, name string, v, def cue.Value) {
	pos, at := v.Pos(), schema.Path(field, name)
	data, ok := r.cueData(at, name, def.Unify(v), pos)
	if !ok {
		return
	}
	in := Info{Kind: kind, Name: name, File: r.cueFile(pos), Pos: pos, Digest: digestOf(map[string][]byte{name: data})}
	switch kind {
	case KindSkill:
		if s, ok := decodeAs[schema.Skill](r, data, pos, at); ok {
			r.cueSkill(name, s, pos)
		}
		return
	case KindPrompt:
		p, ok := decodeAs[schema.Prompt](r, data, pos, at)
		if !ok {
			return
		}
		in.Description = p.Description
		r.c.Prompts[name] = p
	case KindMCP:
		m, ok := decodeAs[schema.MCPServer](r, data, pos, at)
		if !ok {
			return
		}
		if (m.Command == "") == (m.URL == "") {
			r.ds = append(r.ds, schema.Diagnostic{Pos: pos, Path: at, Message: "an MCP server needs exactly one of command (local) or url (remote)"})
			return
		}
		r.c.MCPServers[name] = m
	case KindTemplate:
		t, ok := decodeAs[schema.Template](r, data, pos, at)
		if !ok {
			return
		}
		for _, l := range []*[]string{&t.Skills, &t.Prompts, &t.MCPServers, &t.SubAgents} {
			if *l == nil {
				*l = []string{}
			}
		}
		in.Version, in.Description = t.Version, t.Description
		r.c.Templates[name] = t
	case KindBackend:
		b, ok := decodeAs[schema.Backend](r, data, pos, at)
		if !ok {
			return
		}
		in.Description = b.Description
		r.c.Backends[name] = b
	}
	r.c.Info[kind+"/"+name] = in
}

// cueData is the component u (at path at) validated, concrete and in JSON,
// when its name is valid; every problem is a diagnostic.
func (r *reader) cueData(at, name string, u cue.Value, pos token.Pos) ([]byte, bool) {
	if err := u.Validate(cue.Concrete(true), cue.All()); err != nil {
		r.cueErrors(err)
		return nil, false
	}
	data, err := u.MarshalJSON()
	if err != nil {
		r.cueErrors(err)
		return nil, false
	}
	if msg := schema.CheckName(name); msg != "" {
		r.ds = append(r.ds, schema.Diagnostic{Pos: pos, Path: at, Message: msg})
		return nil, false
	}
	return data, true
}

// cueFile is the hub file of pos, relative to the tree ("" when unknown).
func (r *reader) cueFile(pos token.Pos) string {
	if !pos.IsValid() {
		return ""
	}
	return relTo(r.base, pos.Filename())
}

// decodeAs decodes a component's JSON; a failure is a diagnostic at pos.
func decodeAs[T any](r *reader, data []byte, pos token.Pos, at string) (T, bool) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		r.ds = append(r.ds, schema.Diagnostic{Pos: pos, Path: at, Message: err.Error()})
		return v, false
	}
	return v, true
}

// cueSkill resolves a CUE hub skill's file or dir inside the hub tree.
func (r *reader) cueSkill(name string, s schema.Skill, pos token.Pos) {
	p := schema.Path("skills", name)
	n := 0
	for _, set := range []bool{s.Content != "", s.File != "", s.Dir != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		r.ds = append(r.ds, schema.Diagnostic{Pos: pos, Path: p, Message: "a skill needs exactly one of content, file or dir"})
		return
	}
	switch {
	case s.File != "":
		if err := checkRel(s.File); err != nil {
			r.ds = append(r.ds, schema.Diagnostic{Pos: pos, Path: p + ".file", Message: err.Error()})
			return
		}
		f := path.Clean(s.File)
		data, err := r.read(f)
		if err != nil {
			r.ds = append(r.ds, schema.Diagnostic{Pos: pos, Path: p + ".file", Message: fmt.Sprintf("read %s: %v", r.display(f), err)})
			return
		}
		fm, ok := r.splitSkill(f, data, &s)
		if !ok {
			return
		}
		s.File, s.Source = "", r.display(f)
		r.c.Skills[name] = s
		r.c.Info[KindSkill+"/"+name] = Info{Kind: KindSkill, Name: name, Version: fm["version"], Description: s.Description,
			File: f, Pos: pos, Digest: digestOf(map[string][]byte{path.Base(f): data})}
	case s.Dir != "":
		if err := checkRel(s.Dir); err != nil {
			r.ds = append(r.ds, schema.Diagnostic{Pos: pos, Path: p + ".dir", Message: err.Error()})
			return
		}
		before := len(r.ds)
		r.readSkillDir(path.Clean(s.Dir), Info{Description: s.Description}, name)
		if len(r.ds) == before {
			in := r.c.Info[KindSkill+"/"+name]
			in.Pos = pos
			r.c.Info[KindSkill+"/"+name] = in
		}
	default:
		if err := schema.SplitSkill(&s, s.Content); err != nil {
			r.ds = append(r.ds, schema.Diagnostic{Pos: pos, Path: p + ".content", Message: fmt.Sprintf("frontmatter: %v", err)})
			return
		}
		r.c.Skills[name] = s
		r.c.Info[KindSkill+"/"+name] = Info{Kind: KindSkill, Name: name, Description: s.Description, File: relTo(r.base, pos.Filename()),
			Pos: pos, Digest: digestOf(map[string][]byte{name: []byte(s.Content)})}
	}
}

// cueErrors converts CUE errors to diagnostics at their positions.
func (r *reader) cueErrors(err error) {
	for _, e := range cueerrors.Errors(err) {
		format, args := e.Msg()
		d := schema.Diagnostic{Pos: e.Position(), Message: fmt.Sprintf(format, args...)}
		for _, p := range cueerrors.Positions(e) {
			if p.IsValid() && p.Filename() != "actctl-schema.cue" {
				d.Pos = p
				break
			}
		}
		if ps := e.Path(); len(ps) > 0 {
			d.Path = schema.Path(ps...)
		}
		r.ds = append(r.ds, d)
	}
}

// relTo returns name relative to base (slash-separated) when it is inside.
func relTo(base, name string) string {
	if base == "" {
		return name
	}
	b := path.Clean(base) + "/"
	if len(name) > len(b) && name[:len(b)] == b {
		return name[len(b):]
	}
	return name
}
