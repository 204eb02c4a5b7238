package tomlkeys

import "testing"

// TestOffset: a key's offset is where its definition starts (its value,
// or its [table] header); a section Set appends stands after the others.
func TestOffset(t *testing.T) {
	doc := []byte("model = \"o3\"\n\n[mcp_servers.a]\ncommand = \"a\"\n")
	for _, c := range []struct {
		path []string
		off  int
		ok   bool
	}{
		{[]string{"model"}, 8, true},
		{[]string{"mcp_servers", "a"}, 14, true},
		{[]string{"mcp_servers", "a", "command"}, 40, true},
		{[]string{"mcp_servers", "b"}, 0, false},
	} {
		off, ok, err := Offset(doc, c.path)
		if err != nil {
			t.Fatal(err)
		}
		if off != c.off || ok != c.ok {
			t.Errorf("Offset %v = %d %v, want %d %v", c.path, off, ok, c.off, c.ok)
		}
	}
	out, _, err := Set(doc, []string{"mcp_servers", "b"}, []byte(`{"command":"b"}`))
	if err != nil {
		t.Fatal(err)
	}
	a, _, _ := Offset(out, []string{"mcp_servers", "a"})
	b, _, _ := Offset(out, []string{"mcp_servers", "b"})
	if b <= a {
		t.Errorf("appended section at %d, before the other at %d:\n%s", b, a, out)
	}
}
