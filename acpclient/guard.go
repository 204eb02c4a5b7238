package acpclient

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"

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
	if g.remote != nil {
		return Methods{} // Connect's: writes and terminals are the holder's
	}
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

// Refuses reports whether actctl answers the agent's request method (with
// params) in session s itself, with a refusal, rather than let anyone
// serve it: a method the preset does not let the agent call (the
// refusal of guard), or a write at a path of the session's roots that
// the client never writes (writeCheck). A session lease asks before it
// passes a request to the editor that owns the session, so the preset
// and the protected set bind that path too (docs/runtime.md, "Session
// leases"); the request then goes to the client, which refuses it.
func (s *Session) Refuses(method string, params json.RawMessage) bool {
	m := ClientMethods(s.c.opts.Preset, s.rule)
	switch {
	case method == MethodWriteTextFile:
		if !m.Write {
			return true
		}
		var p struct {
			Path string `json:"path"`
		}
		return json.Unmarshal(params, &p) != nil || s.protectedPath(p.Path)
	case strings.HasPrefix(method, MethodTerminal+"/"):
		return !m.Terminal
	}
	return false
}

// protectedPath reports whether p, inside one of the session's roots as
// spelled or once its existing symlinks are resolved, is a path the
// client never writes. A path outside the roots is not the client's to
// judge here.
func (s *Session) protectedPath(p string) bool {
	if r, rel, err := s.roots.locate(p); err == nil && s.writeCheck(r)(rel) != nil {
		return true
	}
	if !filepath.IsAbs(p) {
		return false // not a path the client would take either
	}
	real, err := realPath(filepath.Clean(p))
	if err != nil {
		return false
	}
	for _, r := range s.roots {
		if rel, ok := within(r.real, real); ok && s.writeCheck(r)(rel) != nil {
			return true
		}
	}
	return false
}
