package materialize

import (
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestCrushMCP: every entry of Crush's "mcp" table has the type Crush
// requires (stdio included), a remote one http or sse by its url, and
// ${VAR} stays as written (Crush shell-expands it).
func TestCrushMCP(t *testing.T) {
	cases := []struct {
		srv  schema.MCPServer
		want string
	}{
		{schema.MCPServer{Command: "srv", Env: map[string]string{"T": "${T}"}}, `{"command":"srv","env":{"T":"${T}"},"type":"stdio"}`},
		{schema.MCPServer{URL: "https://x.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${GH_PAT}"}}, `{"headers":{"Authorization":"Bearer ${GH_PAT}"},"type":"http","url":"https://x.example/mcp"}`},
		{schema.MCPServer{URL: "https://x.example/sse"}, `{"type":"sse","url":"https://x.example/sse"}`},
	}
	for _, c := range cases {
		v, warns, err := mcpServerValue(dialectCrush, "s", c.srv)
		if err != nil || len(warns) != 0 {
			t.Fatalf("%v %q", err, warns)
		}
		if got := string(canonicalJSON(v)); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
