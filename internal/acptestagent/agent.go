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
//	read-as SID PATH  the same, naming session SID in the request
//	write PATH TEXT   fs/write_text_file; "wrote" or "write error: <why>"
//	term SCRIPT       terminal/create of sh -c SCRIPT (output limit 64 bytes),
//	                  wait for exit; "terminal: exit N truncated B: <output>"
//	session           "session <id> cwd <cwd> turn <n> mcp [<kind:name:command|url>,...]"
//	                  (cwd, turn count and MCP servers are the session's own)
//	dirs              "dirs cwd <cwd> [<dir>,...]": the session's cwd and the
//	                  additionalDirectories of its session/new
//	sessions          "sessions <n>": how many sessions are open
//	notes             "notes <n>": extension notifications "_test/note"
//	                  received ("_test/echo" requests are answered with
//	                  their params)
//	ext               an extension notification "_test/notice", then a
//	                  request "_test/ping" to the client; "ext: <result>"
//	mode              "mode <id>": the session's mode (session/new offers
//	                  "ask", the current one, and "code", or what ModesVar
//	                  says; session/set_mode switches)
//	exit N            "exiting", end_turn, then exit with code N once the
//	                  answer was written
//	stream            "streaming pid=P child=C" (C: a `sleep` it started),
//	                  then waits for session/cancel and ends "cancelled"
//	stubborn          like stream but ignores session/cancel
//	wait PATH         "waiting", then ends the turn ("waited") once PATH
//	                  exists (watched with fsnotify, no polling), or
//	                  "cancelled" on session/cancel: a turn a test ends
//	                  when it chooses
//	refuse            stop reason refusal
//	maxtokens         stop reason max_tokens
//	maxturns          stop reason max_turn_requests
//	crash             a text chunk, a line on stderr, then exit 3
//	garbage           a text chunk, then a line that is not JSON on stdout,
//	                  then hangs
//
// Session ids are "sess-<pid>-<n>", n counting from 1. The agent
// advertises session/close, which forgets the session and cancels its
// turn. The environment also steers it:
//
//	ACTCTL_TEST_PROMPT_LOG=FILE       append "<sessionId>\t<prompt text>"
//	                                  (newlines as \n) to FILE for every
//	                                  prompt, before it is handled
//	ACTCTL_TEST_CRASH_AFTER=D         exit with code 7 D (a Go duration)
//	                                  after start
//	ACTCTL_TEST_NO_SESSION_CLOSE=1    do not advertise session/close
//	ACTCTL_TEST_HANG=METHOD           never answer METHOD ("initialize" or
//	                                  "session/new"): a backend that hangs
//	                                  at start
//
// Named ops beyond these (the hostile agent's behaviours: an agent that
// ignores its preset, floods its client, escapes its roots, ...) live in
// the other files of this package, each registered in ops with its
// documentation beside it; the prompt's first word picks them as above.
package acptestagent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/fsnotify/fsnotify"
)

// Var, when set in the environment, makes a test binary act as the agent.
const Var = "ACTCTL_ACP_TEST_AGENT"

// The environment variables that steer the agent (see the package doc).
const (
	PromptLogVar  = "ACTCTL_TEST_PROMPT_LOG"
	CrashAfterVar = "ACTCTL_TEST_CRASH_AFTER"
	NoCloseVar    = "ACTCTL_TEST_NO_SESSION_CLOSE"
	HangVar       = "ACTCTL_TEST_HANG"
	// ExtraDirsVar=1 makes the agent advertise additionalDirectories
	// (sessionCapabilities); the op "dirs" says what a session got.
	ExtraDirsVar = "ACTCTL_TEST_EXTRA_DIRS"
)

// Turn is what a named op sees of the prompt it handles.
type Turn struct {
	a     *agent
	Ctx   context.Context // the connection's
	TCtx  context.Context // the turn's: done on session/cancel
	SID   acp.SessionId
	Words []string          // the prompt's words; Words[0] names the op
	Cwd   string            // the session's cwd
	Req   acp.PromptRequest // the prompt as the agent decoded it
}

// Conn is the agent's side of the connection.
func (t *Turn) Conn() *acp.AgentSideConnection { return t.a.c() }

// Say sends one agent_message_chunk of text to the turn's session.
func (t *Turn) Say(text string) { t.a.say(t.Ctx, t.SID, text) }

// Op is a named behaviour: it runs one turn and returns its stop reason.
type Op func(t *Turn) (acp.StopReason, error)

// ops holds the named behaviours registered by the package's other files
// (in their init functions); the built-in ones above take precedence.
var ops = map[string]Op{}

// register adds a named op; a name registered twice is a bug.
func register(name string, op Op) {
	if _, dup := ops[name]; dup {
		panic("acptestagent: op " + name + " registered twice")
	}
	ops[name] = op
}

// hang blocks forever when the environment names method in HangVar.
func hang(method string) {
	if os.Getenv(HangVar) == method {
		fmt.Fprintln(os.Stderr, "test agent: never answering", method)
		select {}
	}
}

// Main serves one ACP connection on stdio and returns the exit code.
func Main() int {
	if d, err := time.ParseDuration(os.Getenv(CrashAfterVar)); err == nil {
		time.AfterFunc(d, func() {
			fmt.Fprintln(os.Stderr, "test agent: crashing after", d)
			os.Exit(7)
		})
	}
	a := &agent{sessions: map[string]*session{}, out: &exitWriter{w: os.Stdout}, ready: make(chan struct{})}
	a.conn = acp.NewAgentSideConnection(a, a.out, stdin)
	close(a.ready)
	// Children started by stream are not cleaned up here on purpose: the
	// client's process-group kill must reach them.
	<-a.c().Done()
	return 0
}

type agent struct {
	conn     *acp.AgentSideConnection // set before ready is closed
	ready    chan struct{}
	out      *exitWriter
	mu       sync.Mutex
	sessions map[string]*session
	next     int
	notes    int                    // extension notifications received
	caps     acp.ClientCapabilities // what the client advertised in initialize
}

// HandleExtensionMethod answers the extension request "_test/echo" with
// its params and counts the notifications "_test/note".
func (a *agent) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "_test/echo":
		return params, nil
	case "_test/note":
		a.mu.Lock()
		a.notes++
		a.mu.Unlock()
		return nil, nil
	}
	return nil, acp.NewMethodNotFound(method)
}

// c is the connection; handlers may run before Main has stored it.
func (a *agent) c() *acp.AgentSideConnection {
	<-a.ready
	return a.conn
}

// session is one session's state.
type session struct {
	mode   string // the session mode (offeredModes)
	cwd    string
	mcp    []string
	dirs   []string // additionalDirectories of session/new
	turns  int
	cancel context.CancelFunc // the running turn's
}

// exitWriter is the agent's stdout; once code is set, the next message
// carrying a stopReason (the answer to the exit prompt) is written and the
// process exits with code.
type exitWriter struct {
	mu   sync.Mutex
	w    io.Writer
	code *int
}

func (e *exitWriter) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, err := e.w.Write(p)
	if e.code != nil && bytes.Contains(p, []byte(`"stopReason"`)) {
		os.Exit(*e.code)
	}
	return n, err
}

func (e *exitWriter) exitAfterAnswer(code int) {
	e.mu.Lock()
	e.code = &code
	e.mu.Unlock()
}

func (a *agent) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	hang("initialize")
	a.mu.Lock()
	a.caps = p.ClientCapabilities
	a.mu.Unlock()
	r := acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber}
	r.AuthMethods = authMethods() // errdata.go
	if os.Getenv(NoCloseVar) == "" {
		r.AgentCapabilities.SessionCapabilities.Close = &acp.SessionCloseCapabilities{}
	}
	if os.Getenv(ExtraDirsVar) == "1" {
		r.AgentCapabilities.SessionCapabilities.AdditionalDirectories = &acp.SessionAdditionalDirectoriesCapabilities{}
	}
	return r, nil
}

func (a *agent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	hang("session/new")
	holdNewSession(ctx) // hold-new (holdnew.go)
	modes := offeredModes()
	s := &session{cwd: p.Cwd, mode: string(modes.CurrentModeId), dirs: p.AdditionalDirectories}
	for _, m := range p.McpServers {
		switch {
		case m.Stdio != nil:
			s.mcp = append(s.mcp, "stdio:"+m.Stdio.Name+":"+m.Stdio.Command)
		case m.Http != nil:
			s.mcp = append(s.mcp, "http:"+m.Http.Name+":"+m.Http.Url)
		}
	}
	a.mu.Lock()
	a.next++
	id := fmt.Sprintf("sess-%d-%d", os.Getpid(), a.next)
	a.sessions[id] = s
	a.mu.Unlock()
	rememberMeta(id, p.Meta)
	fmt.Fprintf(os.Stderr, "test agent: session/new cwd=%s mcpServers=%d\n", p.Cwd, len(p.McpServers))
	return acp.NewSessionResponse{SessionId: acp.SessionId(id), Modes: modes}, nil
}

// cancelTurn cancels the running turn of session id, if any.
func (a *agent) cancelTurn(id acp.SessionId) {
	a.mu.Lock()
	var c context.CancelFunc
	if s := a.sessions[string(id)]; s != nil {
		c = s.cancel
	}
	a.mu.Unlock()
	if c != nil {
		c()
	}
}

func (a *agent) Cancel(ctx context.Context, p acp.CancelNotification) error {
	a.cancelTurn(p.SessionId)
	return nil
}

func (a *agent) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	if os.Getenv(NoCloseVar) != "" {
		return acp.CloseSessionResponse{}, acp.NewMethodNotFound("session/close")
	}
	a.cancelTurn(p.SessionId)
	a.mu.Lock()
	delete(a.sessions, string(p.SessionId))
	a.mu.Unlock()
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

func (a *agent) SetSessionMode(_ context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[string(p.SessionId)]
	if s == nil || !offers(p.ModeId) {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"sessionId": p.SessionId, "modeId": p.ModeId})
	}
	s.mode = string(p.ModeId)
	return acp.SetSessionModeResponse{}, nil
}

// say sends a text chunk, also after the turn was cancelled (an agent
// sends what it has before it answers "cancelled").
func (a *agent) say(_ context.Context, sid acp.SessionId, text string) {
	_ = a.c().SessionUpdate(context.Background(), acp.SessionNotification{SessionId: sid, Update: acp.UpdateAgentMessageText(text)})
}

// promptText is the text of the prompt's text blocks.
func promptText(p acp.PromptRequest) string {
	var b strings.Builder
	for _, c := range p.Prompt {
		if c.Text != nil {
			b.WriteString(c.Text.Text)
		}
	}
	return b.String()
}

// logPrompt appends the prompt to the file PromptLogVar names, if any.
func logPrompt(sid acp.SessionId, text string) {
	name := os.Getenv(PromptLogVar)
	if name == "" {
		return
	}
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "test agent:", err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(string(sid) + "\t" + strings.ReplaceAll(text, "\n", `\n`) + "\n"); err != nil {
		fmt.Fprintln(os.Stderr, "test agent:", err)
	}
}

// startTurn counts a turn of session sid and returns its state then,
// false if there is no such session.
func (a *agent) startTurn(sid acp.SessionId, cancel context.CancelFunc) (turn int, cwd, mcp string, open int, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.sessions[string(sid)]
	if s == nil {
		return 0, "", "", 0, false
	}
	s.cancel = cancel
	s.turns++
	return s.turns, s.cwd, strings.Join(s.mcp, ","), len(a.sessions), true
}

func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	sid := p.SessionId
	text := promptText(p)
	logPrompt(sid, text)
	words := strings.Fields(text)
	if len(words) == 0 {
		words = []string{"hello"}
	}
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	turn, cwd, mcp, open, ok := a.startTurn(sid, cancel)
	if !ok {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"sessionId": sid, "error": "no such session"})
	}
	end := func(r acp.StopReason) (acp.PromptResponse, error) { return acp.PromptResponse{StopReason: r}, nil }
	switch words[0] {
	case "hello":
		a.say(ctx, sid, "Hello from the test agent.\n")
	case "clock":
		a.say(ctx, sid, fmt.Sprintf("clock %d\n", time.Now().UnixNano()))
	case "session":
		a.say(ctx, sid, fmt.Sprintf("session %s cwd %s turn %d mcp [%s]\n", sid, cwd, turn, mcp))
	case "dirs":
		a.say(ctx, sid, fmt.Sprintf("dirs cwd %s [%s]\n", cwd, strings.Join(a.dirsOf(sid), ",")))
	case "sessions":
		a.say(ctx, sid, fmt.Sprintf("sessions %d\n", open))
	case "notes":
		a.mu.Lock()
		n := a.notes
		a.mu.Unlock()
		a.say(ctx, sid, fmt.Sprintf("notes %d\n", n))
	case "ext":
		_ = a.c().NotifyExtension(ctx, "_test/notice", map[string]any{"sessionId": sid})
		r, err := a.c().CallExtension(ctx, "_test/ping", map[string]any{"sessionId": sid})
		if err != nil {
			a.say(ctx, sid, "ext error: "+err.Error()+"\n")
		} else {
			a.say(ctx, sid, "ext: "+string(r)+"\n")
		}
	case "mode":
		a.mu.Lock()
		mode := a.sessions[string(sid)].mode
		a.mu.Unlock()
		a.say(ctx, sid, "mode "+mode+"\n")
	case "exit":
		code, err := strconv.Atoi(strings.Join(words[1:], ""))
		if err != nil {
			a.say(ctx, sid, "exit error: want a code\n")
			break
		}
		a.say(ctx, sid, "exiting\n")
		a.out.exitAfterAnswer(code)
	case "perm", "perm-only-allow":
		a.permission(ctx, sid, words)
	case "read":
		a.read(ctx, sid, sid, words)
	case "read-as":
		if len(words) < 2 {
			a.say(ctx, sid, "read error: no session\n")
			break
		}
		a.read(ctx, sid, acp.SessionId(words[1]), words[1:])
	case "write":
		a.write(ctx, sid, words)
	case "term":
		a.terminal(ctx, sid, []string{"sh", "-c", strings.Join(words[1:], " ")})
	case "stream", "stubborn":
		return a.stream(ctx, tctx, sid, words[0] == "stubborn")
	case "wait":
		return a.waitFor(ctx, tctx, sid, strings.Join(words[1:], " "))
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
		if ops[words[0]] == nil && ops[lastBlockOp(p)] != nil {
			words[0] = lastBlockOp(p) // a prefix plugin's block came first
		}
		if op := ops[words[0]]; op != nil {
			r, err := op(&Turn{a: a, Ctx: ctx, TCtx: tctx, SID: sid, Words: words, Cwd: cwd, Req: p})
			return acp.PromptResponse{StopReason: r}, err
		}
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
	_ = a.c().SessionUpdate(ctx, acp.SessionNotification{SessionId: sid, Update: acp.StartToolCall(id, title, acp.WithStartKind(kind), acp.WithStartStatus(acp.ToolCallStatusPending))})
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
	resp, err := a.c().RequestPermission(context.Background(), acp.RequestPermissionRequest{SessionId: sid, ToolCall: acp.ToolCallUpdate{ToolCallId: id, Title: acp.Ptr(title), Kind: acp.Ptr(kind)}, Options: opts})
	outcome := permissionOutcome(resp, err)
	status := acp.ToolCallStatusFailed
	if outcome == "yes" || outcome == "always" {
		status = acp.ToolCallStatusCompleted
	}
	_ = a.c().SessionUpdate(context.Background(), acp.SessionNotification{SessionId: sid, Update: acp.UpdateToolCall(id, acp.WithUpdateStatus(status))})
	a.say(ctx, sid, "permission: "+outcome+"\n")
}

// read reads words[1] naming session as in the request, and tells sid.
func (a *agent) read(ctx context.Context, sid, as acp.SessionId, words []string) {
	if len(words) < 2 {
		a.say(ctx, sid, "read error: no path\n")
		return
	}
	r, err := a.c().ReadTextFile(ctx, acp.ReadTextFileRequest{SessionId: as, Path: words[1]})
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
	_, err := a.c().WriteTextFile(ctx, acp.WriteTextFileRequest{SessionId: sid, Path: words[1], Content: strings.Join(words[2:], " ")})
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
	t, err := a.c().CreateTerminal(ctx, acp.CreateTerminalRequest{SessionId: sid, Command: argv[0], Args: argv[1:], OutputByteLimit: acp.Ptr(64)})
	if err != nil {
		a.say(ctx, sid, "terminal error: "+err.Error()+"\n")
		return
	}
	w, err := a.c().WaitForTerminalExit(ctx, acp.WaitForTerminalExitRequest{SessionId: sid, TerminalId: t.TerminalId})
	if err != nil {
		a.say(ctx, sid, "terminal error: "+err.Error()+"\n")
		return
	}
	out, err := a.c().TerminalOutput(ctx, acp.TerminalOutputRequest{SessionId: sid, TerminalId: t.TerminalId})
	if err != nil {
		a.say(ctx, sid, "terminal error: "+err.Error()+"\n")
		return
	}
	_, _ = a.c().ReleaseTerminal(ctx, acp.ReleaseTerminalRequest{SessionId: sid, TerminalId: t.TerminalId})
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

// waitFor ends the turn once path exists: it watches path's directory
// (created before the check, so a file made in between is not missed).
func (a *agent) waitFor(ctx, tctx context.Context, sid acp.SessionId, path string) (acp.PromptResponse, error) {
	end := func(text string, r acp.StopReason) (acp.PromptResponse, error) {
		a.say(ctx, sid, text+"\n")
		return acp.PromptResponse{StopReason: r}, nil
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return end("wait error: "+err.Error(), acp.StopReasonEndTurn)
	}
	defer w.Close()
	if err := w.Add(filepath.Dir(path)); err != nil {
		return end("wait error: "+err.Error(), acp.StopReasonEndTurn)
	}
	a.say(ctx, sid, "waiting\n")
	for {
		if _, err := os.Stat(path); err == nil {
			return end("waited", acp.StopReasonEndTurn)
		}
		select {
		case <-w.Events:
		case err := <-w.Errors:
			return end("wait error: "+err.Error(), acp.StopReasonEndTurn)
		case <-tctx.Done():
			return end("cancelled", acp.StopReasonCancelled)
		}
	}
}

// dirsOf is the additionalDirectories session id was opened with.
func (a *agent) dirsOf(id acp.SessionId) []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[string(id)]; s != nil {
		return s.dirs
	}
	return nil
}
