package schema

import (
	"strings"
	"testing"
)

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
	for _, p := range []string{"webhooks", "hooks", "deploy", "agents.deploy", "agents.checkout", "templates.schedule", "plugins"} {
		walk(p)
	}
}

// TestExplainTopLevelOrder: `actctl explain` lists the top level in the
// order a config is written (hub and backends first, webhooks beside the
// hooks they feed), not with webhooks first.
func TestExplainTopLevelOrder(t *testing.T) {
	e, err := Explain("")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	got := strings.Join(names, " ")
	if want := "hub backends archetypes skills prompts commands ignore mcpServers templates agents deploy hooks webhooks plugins"; got != want {
		t.Errorf("top level: %s\nwant %s", got, want)
	}
}

// TestExplainListElements: a list of structs is explained with its
// elements' fields, and a path goes on into them
// (templates.schedule.cron.pattern, backends.files.mcpFiles.dialect);
// it answered `no field "pattern"`.
func TestExplainListElements(t *testing.T) {
	e, err := Explain("templates.schedule.cron")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range e.Fields {
		names = append(names, f.Name)
	}
	if got := strings.Join(names, " "); got != "pattern prompt timezone" {
		t.Errorf("templates.schedule.cron's fields: %q", got)
	}
	for path, want := range map[string]string{
		"templates.schedule.cron.pattern": "templates.<name>.schedule.cron.pattern",
		"backends.files.mcpFiles.dialect": "backends.<name>.files.mcpFiles.dialect",
		"agents.reviewer.checkout.ref":    "agents.<name>.checkout.ref",
	} {
		e, err := Explain(path)
		if err != nil || e.Field != want {
			t.Errorf("explain %s: %v, %+v; want field %s", path, err, e, want)
		}
	}
	if _, err := Explain("templates.schedule.cron.patern"); err == nil || !strings.Contains(err.Error(), `did you mean "pattern"`) {
		t.Errorf("explain a misspelled element field: %v", err)
	}
}
