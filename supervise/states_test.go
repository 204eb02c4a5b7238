package supervise

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestStatesDocumented: docs/json.md's row for an agent's state lists
// exactly States, in their order.
func TestStatesDocumented(t *testing.T) {
	b, err := os.ReadFile("../docs/json.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `state` \\| (.+) \\|$").FindSubmatch(b)
	if row == nil {
		t.Fatal("docs/json.md has no `state` row")
	}
	var doc []State
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllSubmatch(row[1], -1) {
		doc = append(doc, State(m[1]))
	}
	if !slices.Equal(doc, States) {
		t.Errorf("docs/json.md lists states %q; supervise.States is %q", doc, States)
	}
}
