package jsonkeys

import "testing"

// TestOffset: a key's offset is where its member's name starts; a key Set
// inserts later stands after the keys it depends on.
func TestOffset(t *testing.T) {
	doc := []byte("{\n  \"a\": {\"x\": 1},\n  // note\n  \"b\": 2\n}\n")
	for _, c := range []struct {
		path []string
		off  int
		ok   bool
	}{
		{[]string{"a"}, 4, true},
		{[]string{"a", "x"}, 10, true},
		{[]string{"b"}, 31, true},
		{[]string{"c"}, 0, false},
		{[]string{"b", "y"}, 0, false},
	} {
		off, ok, err := Offset(doc, c.path)
		if err != nil && c.ok {
			t.Fatal(err)
		}
		if off != c.off || ok != c.ok {
			t.Errorf("Offset %v = %d %v, want %d %v", c.path, off, ok, c.off, c.ok)
		}
	}
	out, _, err := Set(doc, []string{"a", "y"}, []byte(`3`))
	if err != nil {
		t.Fatal(err)
	}
	x, _, _ := Offset(out, []string{"a", "x"})
	y, _, _ := Offset(out, []string{"a", "y"})
	if y <= x {
		t.Errorf("inserted key at %d, before its sibling at %d:\n%s", y, x, out)
	}
	if _, ok, _ := Offset([]byte("  \n"), []string{"a"}); ok {
		t.Error("a key in a blank document")
	}
}
