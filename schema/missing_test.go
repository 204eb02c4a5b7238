package schema

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
)

// requiredFields lists the CUE paths (entries named "x", list elements
// [0]) of every field of the embedded schema a user must write once the
// field enclosing it is written: not optional, no default, not concrete.
// Structs that are a disjunction of shapes are left out: their errors
// name the alternatives, not a missing field.
func requiredFields(t *testing.T) [][]cue.Selector {
	t.Helper()
	root := cuecontext.New().CompileBytes(Source)
	var out [][]cue.Selector
	var walk func(v cue.Value, path []cue.Selector)
	walk = func(v cue.Value, path []cue.Selector) {
		if len(path) > 8 {
			return
		}
		if v.IncompleteKind() == cue.ListKind {
			if e := v.LookupPath(cue.MakePath(cue.AnyIndex)); e.Exists() {
				walk(e, append(path, cue.Index(0)))
			}
			return
		}
		if op, _ := v.Expr(); v.IncompleteKind() != cue.StructKind || op == cue.OrOp {
			return
		}
		it, err := v.Fields(cue.Optional(true))
		if err != nil {
			t.Fatalf("%v: %v", cue.MakePath(path...), err)
		}
		for it.Next() {
			p := append(path[:len(path):len(path)], cue.Str(it.Selector().Unquoted()))
			if _, def := it.Value().Default(); !it.IsOptional() && !def && it.Value().Validate(cue.Concrete(true)) != nil {
				out = append(out, p)
			}
			walk(it.Value(), p)
		}
	}
	for _, top := range topLevel {
		if e := root.LookupPath(cue.MakePath(cue.Str(top), cue.AnyString)); e.Exists() {
			walk(e, []cue.Selector{cue.Str(top), cue.Str("x")})
		}
	}
	if len(out) < 10 {
		t.Fatalf("found %d required fields in the schema: the walk is broken", len(out))
	}
	return out
}

// cueSkeleton writes the fields of path as nested empty structs (a list
// index as a one-element list): `templates: x: schedule: heartbeat: {}`.
func cueSkeleton(path []cue.Selector) string {
	var b strings.Builder
	closers := ""
	for i, s := range path {
		if s.Type() == cue.IndexLabel {
			b.WriteString("[{")
			closers = "}]" + closers
			continue
		}
		if i > 0 && path[i-1].Type() == cue.IndexLabel {
			b.WriteString(" ")
		}
		fmt.Fprintf(&b, "%q: ", s.Unquoted())
	}
	return b.String() + "{}" + closers
}

// TestMissingRequiredFieldInUserFile: for every required field of the
// schema, a config that leaves it out is refused with a diagnostic in
// the user's file, at the field that encloses it, naming the field in
// actctl's words; no diagnostic points into the embedded schema.
func TestMissingRequiredFieldInUserFile(t *testing.T) {
	for _, path := range requiredFields(t) {
		parent, field := cue.MakePath(path[:len(path)-1]...), path[len(path)-1].Unquoted()
		src := "package actant\n\n" + cueSkeleton(path[:len(path)-1]) + "\n"
		t.Run(cue.MakePath(path...).String(), func(t *testing.T) {
			dir := writeWorkspace(t, map[string]string{"actant.cue": src})
			_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
			var ds Diagnostics
			if !errors.As(err, &ds) {
				t.Fatalf("config %q: err = %v, want diagnostics", src, err)
			}
			want := fmt.Sprintf("%s: missing required field %q", parent, field)
			found := false
			for _, d := range ds {
				if !d.Pos.IsValid() || filepath.Base(d.Pos.Filename()) != FileName {
					t.Errorf("config %q: diagnostic not in the user's file: %s", src, d)
				}
				found = found || strings.HasSuffix(d.String(), want) || strings.Contains(d.String(), want+" (")
			}
			if !found {
				t.Errorf("config %q: no %q in\n%v", src, want, err)
			}
		})
	}
}

// TestMissingFieldDidYouMean: a misspelled agent name, given only a
// deploy field, is a new agent without a template: the diagnostic is at
// the agent's name and asks whether the near name was meant.
func TestMissingFieldDidYouMean(t *testing.T) {
	dir := writeWorkspace(t, map[string]string{"actant.cue": `package actant

templates: nightly: backend: "claude-code"
agents: nightly: template: "nightly"
agents: nightlly: deploy: github: false
`})
	_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
	want := `actant.cue:5:9: agents.nightlly: missing required field "template" (did you mean "nightly"?)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}

// TestIncompleteValueInUserFile: a field written without a complete
// value is reported at the field in the user's file, with what it wants.
func TestIncompleteValueInUserFile(t *testing.T) {
	dir := writeWorkspace(t, map[string]string{"actant.cue": `package actant

hub: shared: {url: "https://example.com/hub.git", ref: {}}
`})
	_, err := LoadDir(dir, filepath.Join(t.TempDir(), "home"))
	want := `actant.cue:3:51: hub.shared.ref: incomplete: want {branch:!=""} | {tag:!=""}`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
}
