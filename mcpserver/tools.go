package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actctl/actctl/schema"
)

// The tools of `actctl mcp` (README, "Agents that use agents: actctl mcp").
const (
	ListAgents  = "list_agents"
	AgentStatus = "agent_status"
	RunAgent    = "run_agent"
	PromptAgent = "prompt_agent"
)

// CanvasUpdate is the tool of an employee's live canvas (canvas.go).
const CanvasUpdate = "canvas_update"

// tool is one row of the table: its name, the archetypes of the calling
// agents that may use it (a caller that is no actctl-started agent, a
// person, may use every tool), and how it is added to an MCP server.
type tool struct {
	name       string
	archetypes []string
	add        func(*Server, *mcp.Server)
}

// tools is the table of every tool, in the order they are registered.
// Tool agents, which a person drives, and employees get every tool;
// services list, status and prompt; repo agents none (docs/run.md).
var tools = []tool{
	row(ListAgents, "List the workspace's agents: name, template, backend, archetype and the interaction modes each offers.",
		[]string{schema.ArchTool, schema.ArchEmployee, schema.ArchService}, (*Server).listAgents),
	row(AgentStatus, "One agent's status as `actctl status` reports it: Synced, OutOfSync or Missing, with details and its process record.",
		[]string{schema.ArchTool, schema.ArchEmployee, schema.ArchService}, (*Server).agentStatus),
	row(RunAgent, "Run one turn with an agent (or an ephemeral agent made from a template), as `actctl run`: returns its reply text and stop reason. Permission requests are answered by the agent's permissions preset.",
		[]string{schema.ArchTool, schema.ArchEmployee}, (*Server).runAgent),
	row(PromptAgent, "Prompt an agent that `actctl up` keeps running (an employee queues a task).",
		[]string{schema.ArchTool, schema.ArchEmployee, schema.ArchService}, (*Server).promptAgent),
	row(Subscribe, "Be prompted when an event fires (task:done of another agent, webhook:NAME, ...), for as long as your process lives: returns the subscription's id. Employees only.",
		[]string{schema.ArchEmployee}, (*Server).subscribe),
	row(Unsubscribe, "Remove one of your subscriptions by the id subscribe returned. Employees only.",
		[]string{schema.ArchEmployee}, (*Server).unsubscribe),
	row(CanvasUpdate, "Replace your live canvas, the HTML the dashboard of `actctl up` shows for you (employees only): a self-contained page, its scripts and styles inline, at most 256 KiB.",
		[]string{schema.ArchEmployee}, (*Server).canvasUpdate),
}

// row makes a table row whose handler is a method of Server.
func row[In, Out any](name, desc string, archetypes []string, h func(*Server, context.Context, *mcp.CallToolRequest, In) (*mcp.CallToolResult, Out, error)) tool {
	return tool{name: name, archetypes: archetypes, add: func(s *Server, srv *mcp.Server) {
		mcp.AddTool(srv, &mcp.Tool{Name: name, Description: desc}, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
			return h(s, ctx, req, in)
		})
	}}
}

// toolNames are the names of every tool, in the table's order.
func toolNames() []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.name
	}
	return names
}

// toolsFor is what caller may use (README, "actctl mcp"): a person (no
// caller) every tool; an agent the tools its archetype is allowed; a name
// this workspace does not declare, none.
func toolsFor(cfg *schema.Config, caller string) map[string]bool {
	allowed := map[string]bool{}
	arch, known := "", caller == ""
	if !known {
		if r, err := cfg.Resolve(caller); err == nil {
			arch, known = r.ArchetypeName, true
		}
	}
	for _, t := range tools {
		if known && ((caller == "" && !agentOnly[t.name]) || slices.Contains(t.archetypes, arch)) {
			allowed[t.name] = true
		}
	}
	return allowed
}

// register adds the caller's tools, and answers a call of any other tool
// of the table with an error naming what the caller may use.
func (s *Server) register(srv *mcp.Server) {
	for _, t := range tools {
		if s.allowed[t.name] {
			t.add(s, srv)
		}
	}
	srv.AddReceivingMiddleware(s.refuse)
}

// refuse answers a call of a tool the caller may not use with a tool
// error saying so (instead of the SDK's bare "unknown tool").
func (s *Server) refuse(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		call, ok := req.(*mcp.CallToolRequest)
		if method != "tools/call" || !ok || call.Params == nil || s.allowed[call.Params.Name] || !slices.Contains(toolNames(), call.Params.Name) {
			return next(ctx, method, req)
		}
		res := &mcp.CallToolResult{}
		res.SetError(s.refusal(call.Params.Name))
		return res, nil
	}
}

func (s *Server) refusal(tool string) error {
	var may []string
	for _, t := range toolNames() {
		if s.allowed[t] {
			may = append(may, t)
		}
	}
	what := "no tools"
	if len(may) > 0 {
		what = "only " + strings.Join(may, ", ")
	}
	return fmt.Errorf("tool %s is not available to agent %q: its archetype allows %s (README, \"actctl mcp\")", tool, s.caller, what)
}
