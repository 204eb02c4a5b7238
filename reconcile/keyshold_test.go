package reconcile

import (
	"testing"

	"github.com/actctl/actctl/materialize"
)

// TestKeysHold: a keyed file holds its entry while every recorded key
// has the value apply wrote, whatever else changed in it.
func TestKeysHold(t *testing.T) {
	e := EntryState{Path: ".actant.json", Mode: materialize.ModeKeys, Format: "json", Keys: []KeyState{
		{Path: []string{"name"}, SHA256: sum([]byte(`"one"`))},
		{Path: []string{"a", "b"}, SHA256: sum([]byte(`1`))},
	}}
	for _, tc := range []struct {
		name, content string
		e             EntryState
		want          bool
	}{
		{"as written", `{"name": "one", "a": {"b": 1}}`, e, true},
		{"other keys and layout changed", "{\n  \"pid\": 7,\n  \"a\": {\"b\": 1, \"c\": 2},\n  \"name\": \"one\"\n}\n", e, true},
		{"owned key edited", `{"name": "two", "a": {"b": 1}}`, e, false},
		{"owned key gone", `{"a": {"b": 1}}`, e, false},
		{"not JSON", `{"name": "one", "a": `, e, false},
		{"a claimed entry", `{"name": "one", "a": {"b": 1}}`, func() EntryState { c := e; c.Claim = true; return c }(), false},
		{"not keys", `x`, EntryState{Mode: materialize.ModeFile, SHA256: sum([]byte("x"))}, false},
	} {
		if got := KeysHold([]byte(tc.content), tc.e); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
