package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestExplainE2E: explain prints the embedded schema's documentation of a
// field (text and JSON), lists the top level without a FIELD, refuses a
// misspelled field with "did you mean", and reads no workspace.
func TestExplainE2E(t *testing.T) {
	dir := t.TempDir()
	r := actctl(t, dir, "", "explain", "templates.permissions")
	for _, want := range []string{"FIELD:    templates.<name>.permissions   (optional)", "TYPE:     #Permissions", "writes no permission key", "#Preset |"} {
		if r.Code != 0 || !strings.Contains(r.Stdout, want) {
			t.Errorf("explain templates.permissions: exit %d, want %q in\n%s%s", r.Code, want, r.Stdout, r.Stderr)
		}
	}
	r = actctl(t, dir, "", "explain", "-o", "json", "archetypes.tool.interactionModes")
	var e struct {
		Field, Default string
		Fields         []any
	}
	if err := json.Unmarshal([]byte(r.Stdout), &e); err != nil || e.Field != "archetypes.tool.interactionModes" || !strings.Contains(e.Default, `"run"`) || e.Fields == nil {
		t.Errorf("explain -o json: %v %+v\n%s", err, e, r.Stdout)
	}
	if r = actctl(t, dir, "", "explain"); r.Code != 0 || !strings.Contains(r.Stdout, "templates") || !strings.Contains(r.Stdout, "agents") {
		t.Errorf("explain: exit %d\n%s", r.Code, r.Stdout)
	}
	r = actctl(t, dir, "", "explain", "agents.workdir")
	if r.Code != 1 || !strings.Contains(r.Stderr, `actctl: explain: no field "workdir" in agents.<name> (did you mean "workDir"?)`) {
		t.Errorf("misspelled: exit %d %s", r.Code, r.Stderr)
	}
	if r = actctl(t, dir, "", "explain", "a", "b"); r.Code != 2 {
		t.Errorf("two fields: exit %d, want 2", r.Code)
	}
	assertNotWritten(t, dir, "explain", "actant.cue", ".actant", "actant.lock")
}
