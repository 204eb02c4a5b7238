package materialize

import (
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestQwenMCP: Qwen Code takes a streamable HTTP server as httpUrl and an
// SSE one as url (its url is SSE only); stdio is the generic shape, and
// ${VAR} stays for its settings loader to expand. The dialect is JSON.
func TestQwenMCP(t *testing.T) {
	cases := []struct {
		srv  schema.MCPServer
		want string
	}{
		{schema.MCPServer{URL: "https://x.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
			`{"headers":{"Authorization":"Bearer ${TOKEN}"},"httpUrl":"https://x.example/mcp"}`},
		{schema.MCPServer{URL: "https://x.example/sse"}, `{"url":"https://x.example/sse"}`},
		{schema.MCPServer{Command: "srv", Args: []string{"${HOME}"}, Env: map[string]string{"T": "${T}"}},
			`{"args":["${HOME}"],"command":"srv","env":{"T":"${T}"}}`},
	}
	for _, c := range cases {
		v, _, err := mcpServerValue(dialectQwen, "s", c.srv)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(canonicalJSON(v)); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
	f := &schema.MCPFile{Path: "a.toml", Format: "toml", Key: "mcpServers", Dialect: "qwen"}
	if _, err := dialectFor(f); err == nil || !strings.Contains(err.Error(), "is written as json") {
		t.Errorf("qwen as toml: err = %v", err)
	}
}
