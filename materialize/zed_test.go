package materialize

import (
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestZedMCP: Zed's context_servers entries are untagged: a stdio server
// always has args (a list Zed requires), a remote one {url, headers}; an
// SSE server, which Zed does not take, is left out with a warning, as is
// a ${VAR} Zed is not known to expand.
func TestZedMCP(t *testing.T) {
	checkEntries(t, dialectZed, []entryCase{
		{schema.MCPServer{Command: "srv"}, `{"args":[],"command":"srv"}`},
		{schema.MCPServer{Command: "srv", Args: []string{"-v"}, Env: map[string]string{"L": "1"}}, `{"args":["-v"],"command":"srv","env":{"L":"1"}}`},
		{schema.MCPServer{URL: "https://x.example/mcp", Headers: map[string]string{"X": "1"}}, `{"headers":{"X":"1"},"url":"https://x.example/mcp"}`},
	})
	if why := refused(dialectZed, "old", schema.MCPServer{URL: "https://x.example/sse"}); !strings.Contains(why, "Zed does not support the SSE transport") {
		t.Errorf("SSE: %q", why)
	}
	// Kimi Code takes stdio and HTTP servers only, too.
	if why := refused(dialectKimi, "old", schema.MCPServer{URL: "https://x.example/sse"}); !strings.Contains(why, "Kimi Code does not support the SSE transport") {
		t.Errorf("kimi SSE: %q", why)
	}
	if why := refused(dialectKimi, "new", schema.MCPServer{URL: "https://x.example/mcp"}); why != "" {
		t.Errorf("kimi HTTP: %q", why)
	}
	cfg := sampleConfig("zed", schema.ArchTool)
	tg := render(t, cfg, "reviewer", Options{})
	e := tg.Find(".zed/settings.json")
	if e == nil || !hasWarning(tg, `Zed does not document ${VAR} expansion in .zed/settings.json; "Bearer ${GITHUB_TOKEN}"`) {
		t.Fatalf("zed: %v %q", e, tg.Warnings)
	}
	for _, k := range e.Keys {
		if k.Path[0] != "context_servers" && k.Path[0] != "env" && k.Path[0] != "model" {
			t.Errorf("key %v", k.Path)
		}
	}
}

// TestZedRulesHideWarned: Zed reads only the first rules file it finds,
// .rules first, and has no import: a .rules actctl creates beside a
// user's AGENTS.md would hide it from Zed's agent, so apply says so (and
// how to write AGENTS.md instead); not when .rules holds the user's own
// text, nor when no shadowed file holds any.
func TestZedRulesHideWarned(t *testing.T) {
	warned := func(user ...string) bool {
		t.Helper()
		has := map[string]bool{}
		for _, u := range user {
			has[testRoot+"/"+u] = true
		}
		tg := render(t, sampleConfig("zed", schema.ArchTool), "reviewer", Options{UserText: func(p string) bool { return has[p] }})
		if b := tg.Find(".rules"); b == nil || strings.Contains(string(b.Content), "AGENTS.md") {
			t.Errorf("block: %+v", b)
		}
		return hasWarning(tg, `backend "zed" reads only one instruction file, .rules first: once it exists, AGENTS.md (your text) is no longer read by it; to keep that file's text, set backends: "zed": files: instructions: ["AGENTS.md"]`)
	}
	if !warned("AGENTS.md") {
		t.Error("a user's AGENTS.md: no warning")
	}
	if warned() || warned(".rules", "AGENTS.md") {
		t.Error("warned with no user text to hide, or with the user's own .rules")
	}
}
