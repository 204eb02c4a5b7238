package zed

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMergePlan: an entry is replaced or removed only where the record
// says actctl wrote it for this workspace and it is unedited.
func TestMergePlan(t *testing.T) {
	val := json.RawMessage(`{"type":"custom","command":"actctl","args":["proxy","a"]}`)
	first, err := MergePlan([]byte("{\n  // mine\n  \"theme\": \"One\"\n}\n"), nil, "/ws", map[string]json.RawMessage{"a": val})
	if err != nil || len(first.Conflicts) > 0 {
		t.Fatalf("first write: %v %v", err, first.Conflicts)
	}
	if !strings.Contains(string(first.Out), "// mine") || !strings.Contains(string(first.Out), `"agent_servers"`) {
		t.Fatalf("first write lost the user's text or wrote no entry:\n%s", first.Out)
	}
	edited := strings.Replace(string(first.Out), `"proxy"`, `"proxy", "--x"`, 1)
	for _, tc := range []struct {
		name     string
		content  string
		written  map[string]Written
		root     string
		entries  map[string]json.RawMessage
		conflict string // substring of the one conflict, "" for none
		removed  []string
	}{
		{"rewrite unchanged", string(first.Out), first.Written, "/ws", map[string]json.RawMessage{"a": val}, "", nil},
		{"the user's own entry", string(first.Out), nil, "/ws", map[string]json.RawMessage{"a": val}, "not an entry actctl wrote", nil},
		{"another workspace's", string(first.Out), first.Written, "/other", map[string]json.RawMessage{"a": val}, "serves the workspace /ws", nil},
		{"edited by hand", edited, first.Written, "/ws", map[string]json.RawMessage{"a": val}, "edited since", nil},
		{"no longer listed", string(first.Out), first.Written, "/ws", nil, "", []string{"a"}},
		{"no longer listed, edited", edited, first.Written, "/ws", nil, "", nil},
	} {
		p, err := MergePlan([]byte(tc.content), tc.written, tc.root, tc.entries)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := strings.Join(p.Conflicts, ";"); (tc.conflict == "") != (got == "") || !strings.Contains(got, tc.conflict) {
			t.Errorf("%s: conflicts %q, want %q", tc.name, got, tc.conflict)
		}
		if strings.Join(p.Removed, ",") != strings.Join(tc.removed, ",") {
			t.Errorf("%s: removed %v, want %v", tc.name, p.Removed, tc.removed)
		}
		if len(tc.removed) > 0 && strings.Contains(string(p.Out), `"a"`) {
			t.Errorf("%s: entry still there:\n%s", tc.name, p.Out)
		}
		if !strings.Contains(string(p.Out), "// mine") {
			t.Errorf("%s: the user's text is gone:\n%s", tc.name, p.Out)
		}
	}
}
