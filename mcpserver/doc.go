// Package mcpserver is `actctl mcp`: an MCP server on stdio through which
// agents use the workspace's other agents (list, status, run a turn,
// prompt through `actctl up`), with what each caller may use decided by
// its archetype and delegation loops refused (README, "Agents that use
// agents: actctl mcp"; docs/run.md, "actctl mcp").
//
// It exists so that the MCP protocol side — the tools as a table (name,
// archetypes allowed, handler), their arguments and results
// (docs/json.md), the refusals — lives apart from the command line and
// can be tested in process, through the SDK's in-memory transport. What
// the tools need of the rest of actctl (loading the config, an agent's
// status, running one turn, talking to `actctl up`) comes in through a
// [Runner], which cmd/actctl provides.
package mcpserver
