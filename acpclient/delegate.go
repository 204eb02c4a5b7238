package acpclient

import (
	"context"

	acp "github.com/coder/acp-go-sdk"
)

// Delegate serves the client methods an agent calls for one session in
// actctl's place: a session lease passes them to the editor that owns
// the session (docs/runtime.md, "Session leases"). The methods are the
// SDK's agent-side calls to a client, so an acp.AgentSideConnection is a
// Delegate.
type Delegate interface {
	ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error)
	WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error)
	CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error)
	TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error)
	WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error)
	KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error)
	ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error)
}

// DelegateFunc picks the Delegate of one client method ("fs/read_text_file",
// "fs/write_text_file", "terminal"), or nil: actctl serves it itself.
type DelegateFunc func(method string) Delegate

// Client method names a DelegateFunc is asked about.
const (
	MethodReadTextFile  = "fs/read_text_file"
	MethodWriteTextFile = "fs/write_text_file"
	MethodTerminal      = "terminal"
)

// delegateFor returns the session's delegate of method, if it has one.
func (s *Session) delegateFor(method string) Delegate {
	if s.delegate == nil {
		return nil
	}
	return s.delegate(method)
}
