package materialize

import (
	"testing"

	"github.com/actctl/actctl/schema"
)

// entryCase is one server and the entry a dialect writes for it.
type entryCase struct {
	srv  schema.MCPServer
	want string
}

// checkEntries renders each case's server in dialect d and compares the
// entry, as canonical JSON; warnings are the caller's to check.
func checkEntries(t *testing.T, d mcpDialect, cases []entryCase) {
	t.Helper()
	for _, c := range cases {
		v, _, err := mcpServerValue(d, "s", c.srv)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(canonicalJSON(v)); got != c.want {
			t.Errorf("%s: got  %s\nwant %s", d, got, c.want)
		}
	}
}

// TestRooMCP: Zoo Code's (Roo Code's) remote entries are typed
// streamable-http, or sse by the url; a stdio one has no type.
func TestRooMCP(t *testing.T) {
	checkEntries(t, dialectRoo, []entryCase{
		{schema.MCPServer{Command: "srv"}, `{"command":"srv"}`},
		{schema.MCPServer{URL: "https://x.example/mcp", Headers: map[string]string{"X": "1"}}, `{"headers":{"X":"1"},"type":"streamable-http","url":"https://x.example/mcp"}`},
		{schema.MCPServer{URL: "https://x.example/sse"}, `{"type":"sse","url":"https://x.example/sse"}`},
	})
}

// TestCrushMCP: every entry of Crush's "mcp" table has the type Crush
// requires (stdio included), a remote one http or sse by its url, and
// ${VAR} stays as written (Crush shell-expands it, so no warning).
func TestCrushMCP(t *testing.T) {
	checkEntries(t, dialectCrush, []entryCase{
		{schema.MCPServer{Command: "srv", Env: map[string]string{"T": "${T}"}}, `{"command":"srv","env":{"T":"${T}"},"type":"stdio"}`},
		{schema.MCPServer{URL: "https://x.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${GH_PAT}"}}, `{"headers":{"Authorization":"Bearer ${GH_PAT}"},"type":"http","url":"https://x.example/mcp"}`},
		{schema.MCPServer{URL: "https://x.example/sse"}, `{"type":"sse","url":"https://x.example/sse"}`},
	})
	if w := unexpanded(dialectCrush, "s", schema.MCPServer{Command: "srv", Env: map[string]string{"T": "${T}"}}); len(w) != 0 {
		t.Errorf("crush ${VAR} warned: %q", w)
	}
}
