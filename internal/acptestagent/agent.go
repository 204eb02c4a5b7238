// Package acptestagent is a small scripted ACP agent for actctl's tests of
// its ACP client (`actctl run`, `chat`, package acpclient). A test binary
// calls Main from its TestMain when the environment variable Var is set,
// and so doubles as the agent. What a turn does is chosen by the prompt's
// first word:
//
//	hello             one text chunk, end_turn
//	clock             "clock <UnixNano when the prompt arrived>" (benchmarks)
//	perm KIND         a tool call of KIND, a permission request offering
//	                  allow_once "yes", allow_always "always", reject_once
//	                  "no", reject_always "never"; "permission: <id>"
//	perm-only-allow KIND   the same, offering only allow_once "yes"
//	read PATH         fs/read_text_file; "read: <content>" or "read error: <why>"
//	write PATH TEXT   fs/write_text_file; "wrote" or "write error: <why>"
//	term SCRIPT       terminal/create of sh -c SCRIPT (output limit 64 bytes),
//	                  wait for exit; "terminal: exit N truncated B: <output>"
//	session           "session <id> cwd <cwd> turn <n> mcp [<kind:name:command|url>,...]"
//	stream            "streaming pid=P child=C" (C: a `sleep` it started),
//	                  then waits for session/cancel and ends "cancelled"
//	stubborn          like stream but ignores session/cancel
//	refuse            stop reason refusal
//	maxtokens         stop reason max_tokens
//	maxturns          stop reason max_turn_requests
//	crash             a text chunk, a line on stderr, then exit 3
//	garbage           a text chunk, then a line that is not JSON on stdout,
//	                  then hangs
package acptestagent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// Var, when set in the environment, makes a test binary act as the agent.
const Var = "ACTCTL_ACP_TEST_AGENT"

// Main serves one ACP connection on stdio and returns the exit code.
func Main() int {
	a := &agent{cancels: map[string]context.CancelFunc{}}
	a.conn = acp.NewAgentSideConnection(a, os.Stdout, os.Stdin)
	// Children started by stream are not cleaned up here on purpose: the
	// client's process-group kill must reach them.
	<-a.conn.Done()
	return 0
}

type agent struct {
	conn    *acp.AgentSideConnection
	mu      sync.Mutex
	cancels map[string]context.CancelFunc
	cwd     string
	mcp     []string
	turns   int
}

func (a *agent) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber}, nil
}

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	a.mu.Lock()
	a.cwd = p.Cwd
	for _, m := range p.McpServers {
		switch {
		case m.Stdio != nil:
			a.mcp = append(a.mcp, "stdio:"+m.Stdio.Name+":"+m.Stdio.Command)
		case m.Http != nil:
			a.mcp = append(a.mcp, "http:"+m.Http.Name+":"+m.Http.Url)
		}
	}
	a.mu.Unlock()
	fmt.Fprintf(os.Stderr, "test agent: session/new cwd=%s mcpServers=%d\n", p.Cwd, len(p.McpServers))
	return acp.NewSessionResponse{SessionId: acp.SessionId(fmt.Sprintf("sess-%d", os.Getpid()))}, nil
}

func (a *agent) Cancel(ctx context.Context, p acp.CancelNotification) error {
	a.mu.Lock()
	c := a.cancels[string(p.SessionId)]
	a.mu.Unlock()
	if c != nil {
		c()
	}
	return nil
}

func (a *agent) CloseSession(context.Context, acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, nil
}

func (a *agent) ListSessions(context.Context, acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, nil
}

func (a *agent) ResumeSession(context.Context, acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound("session/resume")
}

func (a *agent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, nil
}

func (a *agent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, nil
}

// say sends a text chunk, also after the turn was cancelled (an agent
// sends what it has before it answers "cancelled").
func (a *agent) say(_ context.Context, sid acp.SessionId, text string) {
	_ = a.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: sid, Update: acp.UpdateAgentMessageText(text)})
}

func promptText(p acp.PromptRequest) string {
	var b strings.Builder
	for _, c := range p.Prompt {
		if c.Text != nil {
			b.WriteString(c.Text.Text)
		}
	}
	return strings.TrimSpace(b.String())
}

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	sid := p.SessionId
	words := strings.Fields(promptText(p))
	if len(words) == 0 {
		words = []string{"hello"}
	}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	a.cancels[string(sid)] = cancel
	a.turns++
	turn, cwd, mcp := a.turns, a.cwd, strings.Join(a.mcp, ",")
	a.mu.Unlock()
	end := func(r acp.StopReason) (acp.PromptResponse, error) { return acp.PromptResponse{StopReason: r}, nil }
	switch words[0] {
	case "hello":
		a.say(ctx, sid, "Hello from the test agent.\n")
	case "clock":
		a.say(ctx, sid, fmt.Sprintf("clock %d\n", time.Now().UnixNano()))
	case "session":
		a.say(ctx, sid, fmt.Sprintf("session %s cwd %s turn %d mcp [%s]\n", sid, cwd, turn, mcp))
	case "perm", "perm-only-allow":
		a.permission(ctx, sid, words)
	case "read":
		a.read(ctx, sid, words)
	case "write":
		a.write(ctx, sid, words)
	case "term":
		a.terminal(ctx, sid, []string{"sh", "-c", strings.Join(words[1:], " ")})
	case "stream", "stubborn":
		return a.stream(ctx, tctx, sid, words[0] == "stubborn")
	case "refuse":
		return end(acp.StopReasonRefusal)
	case "maxtokens":
		return end(acp.StopReasonMaxTokens)
	case "maxturns":
		return end(acp.StopReasonMaxTurnRequests)
	case "garbage":
		a.say(ctx, sid, "about to break the protocol\n")
		fmt.Fprintln(os.Stderr, "test agent: writing garbage")
		os.Stdout.WriteString("this is not JSON-RPC\n")
		select {}
	case "crash":
		a.say(ctx, sid, "about to crash\n")
		fmt.Fprintln(os.Stderr, "test agent: crashing on purpose")
		os.Exit(3)
	default:
		a.say(ctx, sid, "unknown test prompt "+words[0]+"\n")
	}
	return end(acp.StopReasonEndTurn)
}

func (a *agent) permission(ctx context.Context, sid acp.SessionId, words []string) {
	kind := acp.ToolKindOther
	if len(words) > 1 {
		kind = acp.ToolKind(words[1])
	}
	id := acp.ToolCallId("call-" + string(kind))
	title := "Tool of kind " + string(kind)
	_ = a.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: sid, Update: acp.StartToolCall(id, title, acp.WithStartKind(kind), acp.WithStartStatus(acp.ToolCallStatusPending))})
	opts := []acp.PermissionOption{{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "yes"}}
	if words[0] == "perm" {
		opts = append(opts,
			acp.PermissionOption{Kind: acp.PermissionOptionKindAllowAlways, Name: "Always", OptionId: "always"},
			acp.PermissionOption{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "no"},
			acp.PermissionOption{Kind: acp.PermissionOptionKindRejectAlways, Name: "Never", OptionId: "never"})
	}
	// Not ctx: the SDK cancels the turn's context on session/cancel, and
	// the tests check the client's own answer ("cancelled") to a request
	// pending at that moment.
	resp, err := a.conn.RequestPermission(context.Background(), acp.RequestPermissionRequest{SessionId: sid, ToolCall: acp.ToolCallUpdate{ToolCallId: id, Title: acp.Ptr(title), Kind: acp.Ptr(kind)}, Options: opts})
	outcome := "cancelled"
	switch {
	case err != nil:
		outcome = "error " + err.Error()
	case resp.Outcome.Selected != nil:
		outcome = string(resp.Outcome.Selected.OptionId)
	}
	status := acp.ToolCallStatusFailed
	if outcome == "yes" || outcome == "always" {
		status = acp.ToolCallStatusCompleted
	}
	_ = a.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: sid, Update: acp.UpdateToolCall(id, acp.WithUpdateStatus(status))})
	a.say(ctx, sid, "permission: "+outcome+"\n")
}

func (a *agent) read(ctx context.Context, sid acp.SessionId, words []string) {
	if len(words) < 2 {
		a.say(ctx, sid, "read error: no path\n")
		return
	}
	r, err := a.conn.ReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: sid, Path: words[1]})
	if err != nil {
		a.say(ctx, sid, "read error: "+err.Error()+"\n")
		return
	}
	a.say(ctx, sid, "read: "+r.Content+"\n")
}

func (a *agent) write(ctx context.Context, sid acp.SessionId, words []string) {
	if len(words) < 3 {
		a.say(ctx, sid, "write error: want a path and text\n")
		return
	}
	_, err := a.conn.WriteTextFile(ctx, acp.WriteTextFileRequest{SessionId: sid, Path: words[1], Content: strings.Join(words[2:], " ")})
	if err != nil {
		a.say(ctx, sid, "write error: "+err.Error()+"\n")
		return
	}
	a.say(ctx, sid, "wrote\n")
}

func (a *agent) terminal(ctx context.Context, sid acp.SessionId, argv []string) {
	if len(argv) == 0 {
		a.say(ctx, sid, "terminal error: no command\n")
		return
	}
	t, err := a.conn.CreateTerminal(ctx, acp.CreateTerminalRequest{SessionId: sid, Command: argv[0], Args: argv[1:], OutputByteLimit: acp.Ptr(64)})
	if err != nil {
		a.say(ctx, sid, "terminal error: "+err.Error()+"\n")
		return
	}
	w, err := a.conn.WaitForTerminalExit(ctx, acp.WaitForTerminalExitRequest{SessionId: sid, TerminalId: t.TerminalId})
	if err != nil {
		a.say(ctx, sid, "terminal error: "+err.Error()+"\n")
		return
	}
	out, err := a.conn.TerminalOutput(ctx, acp.TerminalOutputRequest{SessionId: sid, TerminalId: t.TerminalId})
	if err != nil {
		a.say(ctx, sid, "terminal error: "+err.Error()+"\n")
		return
	}
	_, _ = a.conn.ReleaseTerminal(ctx, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: t.TerminalId})
	code := -1
	if w.ExitCode != nil {
		code = *w.ExitCode
	}
	a.say(ctx, sid, fmt.Sprintf("terminal: exit %d truncated %v: %s\n", code, out.Truncated, out.Output))
}

// stream reports its pid and a child's, then waits for the turn to be
// cancelled (or, stubborn, forever).
func (a *agent) stream(ctx, tctx context.Context, sid acp.SessionId, stubborn bool) (acp.PromptResponse, error) {
	child := exec.Command("sleep", "1000")
	if err := child.Start(); err != nil {
		a.say(ctx, sid, "stream error: "+err.Error()+"\n")
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	}
	a.say(ctx, sid, fmt.Sprintf("streaming pid=%d child=%d\n", os.Getpid(), child.Process.Pid))
	if stubborn {
		select {}
	}
	<-tctx.Done()
	return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
}
