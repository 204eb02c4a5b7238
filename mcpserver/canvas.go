package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/up"
)

// agentOnly are the tools a person's server (no caller) does not offer:
// they act for the calling agent.
var agentOnly = map[string]bool{CanvasUpdate: true}

type canvasIn struct {
	HTML string `json:"html" jsonschema:"the canvas: a self-contained HTML page (inline scripts and styles; nothing is fetched)"`
}

// CanvasOut is canvas_update's result.
type CanvasOut struct {
	Agent string `json:"agent"`
	Bytes int    `json:"bytes"`
}

// canvasUpdate sends the calling employee's canvas to `actctl up`, which
// keeps it and shows it on the dashboard (docs/dashboard.md). Only an
// employee started by actctl has a canvas: the table gives the tool to
// employees alone, and up refuses another archetype too.
func (s *Server) canvasUpdate(ctx context.Context, _ *mcp.CallToolRequest, in canvasIn) (*mcp.CallToolResult, CanvasOut, error) {
	if s.caller == "" {
		return nil, CanvasOut{}, errors.New("canvas_update: only an employee agent has a canvas, and this MCP server serves no agent (actctl mcp without --as)")
	}
	if len(in.HTML) > up.MaxCanvas {
		return nil, CanvasOut{}, fmt.Errorf("canvas_update: the HTML is %d bytes, over the bound of %d", len(in.HTML), up.MaxCanvas)
	}
	err := s.runner.Up(ctx, control.Request{Op: control.OpCanvas, Agent: s.caller, Text: in.HTML}, nil, nil)
	if err != nil {
		return nil, CanvasOut{}, err
	}
	return nil, CanvasOut{Agent: s.caller, Bytes: len(in.HTML)}, nil
}
