package schema

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelNamed: every exported type, constant and variable of package
// model is named by schema too (model.go), so a package reading the
// config needs only schema. Functions are passed on where schema's users
// call them (a wrapper nothing calls is dead code).
func TestModelNamed(t *testing.T) {
	exported := func(dir string) map[string]bool {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, p := range files {
			if strings.HasSuffix(p, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				for _, n := range declNames(d) {
					if n.IsExported() {
						names[n.Name] = true
					}
				}
			}
		}
		return names
	}
	ours := exported(".")
	for name := range exported("../model") {
		if !ours[name] {
			t.Errorf("model.%s is not named by schema: add it to schema/model.go", name)
		}
	}
}

// declNames are the types, constants and variables d declares.
func declNames(d ast.Decl) []*ast.Ident {
	switch d := d.(type) {
	case *ast.GenDecl:
		var out []*ast.Ident
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				out = append(out, s.Name)
			case *ast.ValueSpec:
				out = append(out, s.Names...)
			}
		}
		return out
	}
	return nil
}
