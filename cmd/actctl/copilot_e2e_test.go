package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCopilotCLIMCPE2E: a Copilot agent's MCP servers reach both of
// Copilot's readers: VS Code's .vscode/mcp.json ("servers", ${env:NAME})
// and the Copilot CLI's workspace file .github/mcp.json ("mcpServers",
// {"type": "local", command, args, env, "tools": ["*"]}; remote {"type":
// "http"|"sse", url, headers, "tools": ["*"]}), which the CLI reads since
// it stopped reading .vscode/mcp.json; the user's entries stay, a re-apply
// writes nothing, the prune leaves the user's bytes (issue #23 item 13).
func TestCopilotCLIMCPE2E(t *testing.T) {
	cfg := func(agents string) string {
		return `package actant
mcpServers: {
	fs: {command: "npx", args: ["-y", "fs-mcp"], env: {API_KEY: "${MY_KEY}"}}
	github: {url: "https://api.githubcopilot.com/mcp/", headers: Authorization: "Bearer ${GITHUB_TOKEN}"}
	legacy: {url: "https://old.example/sse"}
}
templates: c: {backend: "copilot", mcpServers: ["fs", "github", "legacy"]}
agents: {` + agents + `}
`
	}
	type server struct {
		Type    string
		Command string
		Args    []string
		Env     map[string]string
		URL     string
		Headers map[string]string
		Tools   []string
	}
	runArtifact(t, artifactCase{
		user:    map[string]string{".github/mcp.json": "{\n  \"mcpServers\": {\n    \"mine\": {\"type\": \"local\", \"command\": \"my-mcp\", \"tools\": [\"*\"]}\n  }\n}\n"},
		with:    cfg(`c: template: "c"`),
		without: cfg(""),
		check: func(t *testing.T, dir string, r result) {
			var cli struct {
				MCPServers map[string]server `json:"mcpServers"`
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".github/mcp.json"))), &cli); err != nil {
				t.Fatal(err)
			}
			s := cli.MCPServers
			if len(s) != 4 || s["mine"].Command != "my-mcp" ||
				s["fs"].Type != "local" || s["fs"].Command != "npx" || strings.Join(s["fs"].Args, " ") != "-y fs-mcp" || s["fs"].Env["API_KEY"] != "${MY_KEY}" || strings.Join(s["fs"].Tools, ",") != "*" ||
				s["github"].Type != "http" || s["github"].URL != "https://api.githubcopilot.com/mcp/" || s["github"].Headers["Authorization"] != "Bearer ${GITHUB_TOKEN}" || strings.Join(s["github"].Tools, ",") != "*" ||
				s["legacy"].Type != "sse" {
				t.Errorf(".github/mcp.json: %+v", s)
			}
			if w := `the Copilot CLI is known to expand ${NAME} in env only; "Bearer ${GITHUB_TOKEN}" is written as is`; !strings.Contains(r.Stdout+r.Stderr, w) && !strings.Contains(r.Stdout+r.Stderr, strings.ReplaceAll(w, `"`, `\"`)) {
				t.Errorf("no warning %q in:\n%s%s", w, r.Stdout, r.Stderr)
			}
			var vs struct {
				Servers map[string]server `json:"servers"`
			}
			if err := json.Unmarshal([]byte(read(t, filepath.Join(dir, ".vscode/mcp.json"))), &vs); err != nil {
				t.Fatal(err)
			}
			if v := vs.Servers; len(v) != 3 || v["fs"].Type != "stdio" || v["fs"].Env["API_KEY"] != "${env:MY_KEY}" {
				t.Errorf(".vscode/mcp.json: %+v", v)
			}
		},
	})
}
