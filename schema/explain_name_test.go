package schema

import (
	"strings"
	"testing"
)

// TestExplainNameOrSiblingField: a last path word in a name position that
// is a field of a sibling level (templates.checkout: checkout is an
// agent's field) is refused with the field meant, not explained silently
// as a template named checkout; a name that is no field anywhere near is
// still an entry (new-user review item 3).
func TestExplainNameOrSiblingField(t *testing.T) {
	_, err := Explain("templates.checkout")
	if err == nil || !strings.Contains(err.Error(), `no field "checkout" in templates.<name>: did you mean agents.<name>.checkout?`) {
		t.Errorf("templates.checkout: %v", err)
	}
	if e, err := Explain("templates.reviewer"); err != nil || e.Field != "templates.<name>" {
		t.Errorf("templates.reviewer: %+v, %v", e, err)
	}
	if e, err := Explain("agents.checkout"); err != nil || e.Field != "agents.<name>.checkout" {
		t.Errorf("agents.checkout: %+v, %v", e, err)
	}
}
