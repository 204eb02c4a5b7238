package schema

// ActctlServer is the reserved MCP server name: a template that lists it
// in mcpServers gets actctl's own MCP server (`actctl mcp`, README
// "Agents that use agents: actctl mcp"), with no definition of its own.
const ActctlServer = "actctl"

// ActctlCommand is the command the reserved server runs: actctl found on
// the PATH of the tool that starts it, so that the entry stays the same
// across rebuilds, `go run` and reinstalls (README, "actctl mcp").
const ActctlCommand = "actctl"

// MCPServerFor is the MCP server a template's reference names for agent:
// the declared one, or for the reserved name the server running
// `actctl mcp -C <root> --home <home> --as <agent>`.
func (c *Config) MCPServerFor(ref, agent string) (MCPServer, bool) {
	if ref == ActctlServer {
		return MCPServer{Command: ActctlCommand, Args: []string{"mcp", "-C", c.Root, "--home", c.Home, "--as", agent}}, true
	}
	s, ok := c.MCPServers[ref]
	return s, ok
}
