package hub

import (
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestCheckRefsCommands: a template's hub command reference that no
// source provides is reported at the reference (hubs carry no commands
// yet), and a hub template's own command references are qualified.
func TestCheckRefsCommands(t *testing.T) {
	cfg := &schema.Config{
		Hub:       map[string]schema.HubSource{"team": {URL: "file:///x"}},
		Backends:  map[string]schema.Backend{"claude-code": {}},
		Commands:  map[string]schema.SlashCommand{"fix": {Content: "x"}},
		Templates: map[string]schema.Template{"t": {Backend: "claude-code", Commands: []string{"fix", "team@lint"}}},
	}
	Merge(cfg, "team", &Components{Templates: map[string]schema.Template{"rev": {Backend: "claude-code", Commands: []string{"lint"}}}})
	if got := cfg.Templates["team@rev"].Commands; len(got) != 1 || got[0] != "team@lint" {
		t.Errorf("hub template commands = %v", got)
	}
	var msgs []string
	for _, d := range CheckRefs(cfg) {
		msgs = append(msgs, d.Path+": "+d.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		`templates.t.commands[1]: unknown command "team@lint" (hub source "team" has no such command)`,
		`templates."team@rev".commands[0]: unknown command "team@lint"`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, `"fix"`) {
		t.Errorf("a declared local command was reported:\n%s", all)
	}
}

// TestMergeReservedActctlServer: a hub template's "actctl" is actctl's own
// MCP server, kept unqualified and accepted, while its other servers are
// qualified with the source.
func TestMergeReservedActctlServer(t *testing.T) {
	cfg := &schema.Config{
		Hub:      map[string]schema.HubSource{"team": {URL: "file:///x"}},
		Backends: map[string]schema.Backend{"claude-code": {}},
	}
	Merge(cfg, "team", &Components{
		MCPServers: map[string]schema.MCPServer{"gh": {Command: "gh-mcp"}},
		Templates:  map[string]schema.Template{"lead": {Backend: "claude-code", MCPServers: []string{"gh", "actctl"}}},
	})
	if got := strings.Join(cfg.Templates["team@lead"].MCPServers, ","); got != "team@gh,actctl" {
		t.Errorf("hub template mcpServers = %s", got)
	}
	for _, d := range CheckRefs(cfg) {
		if strings.Contains(d.Path, "mcpServers") {
			t.Errorf("unexpected: %s", d)
		}
	}
}
