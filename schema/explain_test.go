package schema

import (
	"strings"
	"testing"
)

// TestExplain: fields are found through maps (named or not) and optional
// fields, with the schema's own type, default and documentation; an
// unknown field says what there is.
func TestExplain(t *testing.T) {
	for _, tt := range []struct {
		path, field, typ, def, doc, defn string
		optional                         bool
		hasField                         string
	}{
		{"templates.permissions", "templates.<name>.permissions", "#Permissions", "", "writes no permission key", "#Permissions", true, ""},
		{"templates.reviewer.permissions", "templates.<name>.permissions", "#Permissions", "", "writes no permission key", "#Permissions", true, ""},
		{"backends.files.mcp", "backends.<name>.files.mcp", "#MCPFile", "", "", "#MCPFile", true, "dialect"},
		{"archetypes.tool.interactionModes", "archetypes.tool.interactionModes", "", `["open", "start", "chat", "run", "proxy"]`, "", "", false, ""},
		{"templates", "templates", "", "", "a backend plus components", "", false, "permissions"},
		{"", "(top level)", "", "", "", "", false, "agents"},
	} {
		e, err := Explain(tt.path)
		if err != nil {
			t.Errorf("Explain(%q): %v", tt.path, err)
			continue
		}
		if e.Field != tt.field || e.Optional != tt.optional || (tt.typ != "" && e.Type != tt.typ) || e.Default != tt.def ||
			!strings.Contains(e.Doc, tt.doc) || e.Definition != tt.defn {
			t.Errorf("Explain(%q) = %+v", tt.path, e)
		}
		if tt.defn != "" && (e.DefinitionType == "" || e.DefinitionDoc == "") {
			t.Errorf("Explain(%q): definition %s without its type or doc: %+v", tt.path, tt.defn, e)
		}
		if tt.hasField != "" && !hasFieldDoc(e.Fields, tt.hasField) {
			t.Errorf("Explain(%q): no field %s in %+v", tt.path, tt.hasField, e.Fields)
		}
	}
	_, err := Explain("templates.permisions")
	if err == nil || !strings.Contains(err.Error(), `no field "permisions" in templates.<name> (did you mean "permissions"?)`) {
		t.Errorf("misspelled field: %v", err)
	}
	if _, err := Explain("nosuch"); err == nil || !strings.Contains(err.Error(), "at the top level") || !strings.Contains(err.Error(), "templates") {
		t.Errorf("unknown top-level field: %v", err)
	}
}

func hasFieldDoc(fs []FieldDoc, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}
