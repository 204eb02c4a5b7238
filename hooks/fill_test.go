package hooks

import (
	"encoding/json"
	"testing"
)

// TestFillNested: {{event.data.payload...}} reaches into a webhook's
// payload at any depth, through objects and list indexes; a path that is
// not there is left as written.
func TestFillNested(t *testing.T) {
	var payload any
	if err := json.Unmarshal([]byte(`{"issue": {"title": "Found a bug", "number": 1347, "labels": [{"name": "bug"}]},
		"commits": [{"message": "first"}, {"message": "second"}]}`), &payload); err != nil {
		t.Fatal(err)
	}
	ev := Event{Name: "webhook:gh", Data: map[string]any{"event": "issues", "payload": payload}}
	for text, want := range map[string]string{
		"New issue: {{event.data.payload.issue.title}}": "New issue: Found a bug",
		"#{{ event.data.payload.issue.number }}":        "#1347",
		"{{event.data.payload.issue.labels.0.name}}":    "bug",
		"{{event.data.payload.commits.1.message}}":      "second",
		"{{event.data.payload.commits.2.message}}":      "{{event.data.payload.commits.2.message}}",
		"{{event.data.payload.commits.x}}":              "{{event.data.payload.commits.x}}",
		"{{event.data.payload.issue.title.more}}":       "{{event.data.payload.issue.title.more}}",
		"{{event.data.payload.issue.labels}}":           `[{"name":"bug"}]`,
		"{{event.name}} {{event.data.event}}":           "webhook:gh issues",
	} {
		if got := Fill(text, ev); got != want {
			t.Errorf("Fill(%q) = %q, want %q", text, got, want)
		}
	}
}
