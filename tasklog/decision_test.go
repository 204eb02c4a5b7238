package tasklog

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// TestDecisionLine: a decision is one line of the task file, a
// notification of DecisionMethod that ParseDecision reads back, said in
// words with who decided.
func TestDecisionLine(t *testing.T) {
	dir := t.TempDir()
	w, err := Begin(dir, Task{ID: 1, Started: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	want := Decision{ToolCallID: "c1", Title: "Edit <a> & b", Kind: "edit", Decision: "allowed", OptionID: "yes", By: "rule", Rule: "all"}
	w.Decision(want)
	if err := w.Finish(Summary{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &m) != nil || m.Method != DecisionMethod {
		t.Fatalf("task file:\n%s", data)
	}
	if got, ok := ParseDecision(m.Params); !ok || got != want {
		t.Errorf("read back %+v, want %+v", got, want)
	}
	for _, tc := range []struct{ by, rule, words string }{
		{"preset", "edits", "by the agent's preset (rule edits)"},
		{"rule", "none", "by a rule overriding the preset (rule none)"},
		{"user", "", "by the user"},
		{"cancel", "", "the turn was cancelled"},
	} {
		if got := (Decision{By: tc.by, Rule: tc.rule}).Words(); got != tc.words {
			t.Errorf("%s: %q, want %q", tc.by, got, tc.words)
		}
	}
}
