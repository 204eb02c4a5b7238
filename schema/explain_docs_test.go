package schema

import "testing"

// TestExplainDocumentsEveryField: every field below the runtime's and the
// deploy targets' config (webhooks, hooks, deploy, an agent's deploy and
// checkout, a template's schedule) has a documentation comment, so that
// `actctl explain` says what each one is for, not only its type.
func TestExplainDocumentsEveryField(t *testing.T) {
	var walk func(path string)
	walk = func(path string) {
		e, err := Explain(path)
		if err != nil {
			t.Fatalf("explain %s: %v", path, err)
		}
		if e.Doc == "" {
			t.Errorf("explain %s: no documentation", e.Field)
		}
		for _, f := range e.Fields {
			walk(path + "." + f.Name)
		}
	}
	for _, p := range []string{"webhooks", "hooks", "deploy", "agents.deploy", "agents.checkout", "templates.schedule"} {
		walk(p)
	}
}
