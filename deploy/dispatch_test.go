package deploy

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestDispatchPromptDescription: the manual run's prompt input says what
// an empty prompt does: the heartbeat for an employee that has one, and
// for one that has none (report) that a prompt is needed, as its script
// says; it said "(empty: its heartbeat)" for both.
func TestDispatchPromptDescription(t *testing.T) {
	outs, err := Render(loadTeam(t), Options{Now: goldenNow})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		".github/workflows/actctl-report.yml": "A task for report (required: report has no heartbeat)",
		".github/workflows/actctl-triage.yml": "A task for triage (empty: its heartbeat)",
	}
	for _, f := range outs[1].Files {
		var w workflow
		if err := yaml.Unmarshal(f.Content, &w); err != nil {
			t.Fatal(err)
		}
		if got := w.On.WorkflowDispatch.Inputs["prompt"].Description; got != want[f.Path] {
			t.Errorf("%s: prompt input %q, want %q", f.Path, got, want[f.Path])
		}
	}
}
