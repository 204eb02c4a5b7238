package acpclient

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// guard is the Client as the SDK's connection sees it: the client
// methods that change things are refused at their entry unless the
// Methods of the session the request names allow them (ClientMethods of
// the agent's preset and the session's rule), whoever would serve them
// (actctl, or a lease's editor), so an agent that ignores what initialize
// advertised gets an error, not a write or a process (docs/run.md, "What
// the preset lets the client do").
type guard struct{ *Client }

// methods is what the agent may call in session sid; a request naming no
// open session is left to the method, which refuses it.
func (g guard) methods(sid acp.SessionId) Methods {
	s, err := g.session(sid)
	if err != nil {
		return Methods{Write: true, Terminal: true}
	}
	return ClientMethods(g.opts.Preset, s.rule)
}

// refusal is the error of a method the preset does not allow.
func refusal(method, why string) error {
	return &acp.RequestError{Code: -32601, Message: "actctl refuses " + method + ": " + why + " (it was not advertised in initialize; see actctl's docs/run.md)",
		Data: map[string]any{"method": method}}
}

const (
	noWrites    = "this agent's permissions do not let it write files through its client (only the standard and permissive presets do; --deny-all and --approve-reads take it away)"
	noTerminals = "this agent's permissions do not let it run commands through its client (only the permissive preset does; --deny-all and --approve-reads take it away)"
)

func (g guard) WriteTextFile(ctx context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	if !g.methods(req.SessionId).Write {
		return acp.WriteTextFileResponse{}, refusal(MethodWriteTextFile, noWrites)
	}
	return g.Client.WriteTextFile(ctx, req)
}

func (g guard) CreateTerminal(ctx context.Context, req acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	if !g.methods(req.SessionId).Terminal {
		return acp.CreateTerminalResponse{}, refusal("terminal/create", noTerminals)
	}
	return g.Client.CreateTerminal(ctx, req)
}

func (g guard) TerminalOutput(ctx context.Context, req acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	if !g.methods(req.SessionId).Terminal {
		return acp.TerminalOutputResponse{}, refusal("terminal/output", noTerminals)
	}
	return g.Client.TerminalOutput(ctx, req)
}

func (g guard) WaitForTerminalExit(ctx context.Context, req acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	if !g.methods(req.SessionId).Terminal {
		return acp.WaitForTerminalExitResponse{}, refusal("terminal/wait_for_exit", noTerminals)
	}
	return g.Client.WaitForTerminalExit(ctx, req)
}

func (g guard) KillTerminal(ctx context.Context, req acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	if !g.methods(req.SessionId).Terminal {
		return acp.KillTerminalResponse{}, refusal("terminal/kill", noTerminals)
	}
	return g.Client.KillTerminal(ctx, req)
}

func (g guard) ReleaseTerminal(ctx context.Context, req acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	if !g.methods(req.SessionId).Terminal {
		return acp.ReleaseTerminalResponse{}, refusal("terminal/release", noTerminals)
	}
	return g.Client.ReleaseTerminal(ctx, req)
}
