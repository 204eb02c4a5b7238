package up

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/control"
)

// leaseClient is an editor on a lease: it records the text each of its
// sessions receives and the permission requests it is asked, answering
// with the option it is told to choose.
type leaseClient struct {
	conn   *acp.ClientSideConnection
	close  func()
	choose string        // the option it picks; "hold": none (held is sent to)
	held   chan struct{} // with choose "hold": a permission request arrived

	mu      sync.Mutex
	text    map[acp.SessionId]*strings.Builder
	asked   []acp.RequestPermissionRequest
	notices []string // extension notifications from the agent: their params
	served  []string // the writes and terminals it served: "write PATH", "terminal CMD"
}

// HandleExtensionMethod answers the agent's "_test/ping" and records its
// "_test/notice" notifications.
func (c *leaseClient) HandleExtensionMethod(_ context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "_test/ping":
		return map[string]bool{"pong": true}, nil
	case "_test/notice":
		c.mu.Lock()
		c.notices = append(c.notices, string(params))
		c.mu.Unlock()
		return nil, nil
	}
	return nil, acp.NewMethodNotFound(method)
}

func (c *leaseClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n.Update.AgentMessageChunk != nil && n.Update.AgentMessageChunk.Content.Text != nil {
		if c.text[n.SessionId] == nil {
			c.text[n.SessionId] = &strings.Builder{}
		}
		c.text[n.SessionId].WriteString(n.Update.AgentMessageChunk.Content.Text.Text)
	}
	return nil
}

func (c *leaseClient) RequestPermission(ctx context.Context, r acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, r)
	c.mu.Unlock()
	if c.choose == "hold" { // never answers: an editor that goes away meanwhile
		c.held <- struct{}{}
		<-ctx.Done()
		return acp.RequestPermissionResponse{}, ctx.Err()
	}
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: acp.PermissionOptionId(c.choose), Outcome: "selected"}}}, nil
}

func (c *leaseClient) said(sid acp.SessionId) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.text[sid]; b != nil {
		return b.String()
	}
	return ""
}

// ReadTextFile answers as an editor would from its buffer: a text that
// names the path, so the test sees who served the read.
func (c *leaseClient) ReadTextFile(_ context.Context, r acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{Content: "editor buffer of " + r.Path}, nil
}

// WriteTextFile records the write, as an editor would make it.
func (c *leaseClient) WriteTextFile(_ context.Context, r acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	c.record("write " + r.Path)
	return acp.WriteTextFileResponse{}, nil
}
func (c *leaseClient) CreateTerminal(_ context.Context, r acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	c.record("terminal " + r.Command)
	return acp.CreateTerminalResponse{TerminalId: "editor-term-1"}, nil
}

func (c *leaseClient) record(what string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.served = append(c.served, what)
}
func (c *leaseClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, nil
}
func (c *leaseClient) TerminalOutput(_ context.Context, r acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{Output: "output of " + r.TerminalId}, nil
}
func (c *leaseClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, nil
}
func (c *leaseClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{ExitCode: acp.Ptr(0)}, nil
}

// lease connects a client to agent's lease, as `proxy --lease` does
// through the control socket (here over a pipe).
func (h *harness) lease(agent, choose string) *leaseClient {
	h.t.Helper()
	return h.leaseWith(agent, choose, acp.ClientCapabilities{})
}

// leaseWith is lease with the client capabilities sent in initialize.
func (h *harness) leaseWith(agent, choose string, caps acp.ClientCapabilities) *leaseClient {
	h.t.Helper()
	return h.leaseAs(control.Request{Op: control.OpLease, Agent: agent}, choose, caps)
}

// leaseAs is lease with the request the proxy sends (its Client claim).
func (h *harness) leaseAs(req control.Request, choose string, caps acp.ClientCapabilities) *leaseClient {
	h.t.Helper()
	serve, err := h.m.Upgrade(context.Background(), req)
	if err != nil {
		h.t.Fatal(err)
	}
	ours, theirs := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = serve(context.Background(), theirs, theirs)
		theirs.Close()
	}()
	c := &leaseClient{choose: choose, held: make(chan struct{}, 1), text: map[acp.SessionId]*strings.Builder{}}
	c.conn = acp.NewClientSideConnection(c, ours, ours)
	c.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	c.close = func() { ours.Close(); <-done }
	h.t.Cleanup(c.close)
	if _, err := c.conn.Initialize(context.Background(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps}); err != nil {
		h.t.Fatal(err)
	}
	return c
}

func (c *leaseClient) newSession(t testing.TB, cwd string) acp.SessionId {
	t.Helper()
	r, err := c.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return r.SessionId
}

func (c *leaseClient) prompt(sid acp.SessionId, text string) (acp.PromptResponse, error) {
	return c.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: sid, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
}

// TestLeaseTwoClients: two clients on one warm service get sessions on
// the same process, each with its own cwd, and see only their own
// updates and permission requests.
func TestLeaseTwoClients(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{service(t, "api")})
	pid := h.wait("process:start", "api").Data["pid"].(int)
	a, b := h.lease("api", "yes"), h.lease("api", "no")
	cwdA, cwdB := t.TempDir(), t.TempDir()
	sa, sb := a.newSession(t, cwdA), b.newSession(t, cwdB)
	if sa == sb {
		t.Fatalf("one session id for two clients: %s", sa)
	}
	for _, x := range []struct {
		c   *leaseClient
		sid acp.SessionId
		cwd string
	}{{a, sa, cwdA}, {b, sb, cwdB}} {
		if r, err := x.c.prompt(x.sid, "session"); err != nil || r.StopReason != acp.StopReasonEndTurn {
			t.Fatalf("prompt: %+v %v", r, err)
		}
		said := x.c.said(x.sid)
		if !strings.Contains(said, "cwd "+x.cwd) || !strings.HasPrefix(said, "session sess-"+strconv.Itoa(pid)+"-") {
			t.Errorf("session %s said %q, want its cwd %s on pid %d", x.sid, said, x.cwd, pid)
		}
	}
	if a.said(sb) != "" || b.said(sa) != "" {
		t.Errorf("updates crossed: a saw %q, b saw %q", a.said(sb), b.said(sa))
	}
	// Permission requests go to the owner only, answered with its choice.
	if _, err := a.prompt(sa, "perm edit"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.prompt(sb, "perm read"); err != nil {
		t.Fatal(err)
	}
	if len(a.asked) != 1 || *a.asked[0].ToolCall.Kind != acp.ToolKindEdit || len(b.asked) != 1 || *b.asked[0].ToolCall.Kind != acp.ToolKindRead {
		t.Fatalf("permission requests: a %d, b %d", len(a.asked), len(b.asked))
	}
	if !strings.Contains(a.said(sa), "permission: yes") || !strings.Contains(b.said(sb), "permission: no") {
		t.Errorf("answers: a %q, b %q", a.said(sa), b.said(sb))
	}
	// A client cannot use another's session.
	if _, err := b.prompt(sa, "hello"); err == nil || !strings.Contains(err.Error(), "leased by another client") {
		t.Errorf("b prompting a's session: %v", err)
	}
}

// TestLeaseResumeAndExpiry: a client that goes leaves its session idle; a
// new client resumes it by id; an idle session expires after the TTL.
func TestLeaseResumeAndExpiry(t *testing.T) {
	h := newHarness(t, nil)
	s := service(t, "api")
	s.LeaseTTL = 10 * time.Minute
	h.m.Sync([]Spec{s})
	h.wait("process:start", "api")
	a := h.lease("api", "yes")
	sid := a.newSession(t, t.TempDir())
	if _, err := a.prompt(sid, "hello"); err != nil {
		t.Fatal(err)
	}
	a.close()
	h.clk.WaitPending(1) // the idle timer of the session
	b := h.lease("api", "yes")
	if _, err := b.conn.ResumeSession(context.Background(), acp.ResumeSessionRequest{SessionId: sid, Cwd: "/"}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if r, err := b.prompt(sid, "session"); err != nil || !strings.Contains(b.said(sid), "turn 2") {
		t.Fatalf("resumed session: %+v %v %q", r, err, b.said(sid))
	}
	b.close()
	h.clk.WaitPending(1)
	h.clk.Advance(10 * time.Minute)
	waitLeases(t, h.m, "api", 0)
	c := h.lease("api", "yes")
	if _, err := c.conn.LoadSession(context.Background(), acp.LoadSessionRequest{SessionId: sid, Cwd: "/", McpServers: []acp.McpServer{}}); err == nil || !strings.Contains(err.Error(), "unknown session") {
		t.Fatalf("load after expiry: %v", err)
	}
}

// TestLeaseRefused: no lease on an agent that is not running or unknown.
func TestLeaseRefused(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{service(t, "api")})
	h.wait("process:start", "api")
	if _, err := h.m.Stop(context.Background(), "api"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.m.Upgrade(context.Background(), control.Request{Op: control.OpLease, Agent: "api"}); err == nil || !strings.Contains(err.Error(), "agent api is stopped") {
		t.Errorf("lease on a stopped agent: %v", err)
	}
	if _, err := h.m.Upgrade(context.Background(), control.Request{Op: control.OpLease, Agent: "nope"}); err == nil || !strings.Contains(err.Error(), "not run by this actctl up") {
		t.Errorf("lease on an unknown agent: %v", err)
	}
}

// waitLeases waits until agent holds n leased sessions (the idle timer
// drops them from its own goroutine).
func waitLeases(t *testing.T, m *Manager, agent string, n int) {
	t.Helper()
	a, err := m.agent(agent)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		a.mu.Lock()
		got := len(a.leases)
		a.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %d leased sessions, want %d", agent, got, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLeaseModes: session/new passes the agent's modes on, and
// session/set_mode reaches the agent for the client's own session only.
func TestLeaseModes(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{service(t, "api")})
	h.wait("process:start", "api")
	a, b := h.lease("api", "yes"), h.lease("api", "yes")
	r, err := a.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	if err != nil || r.Modes == nil || r.Modes.CurrentModeId != "ask" || len(r.Modes.AvailableModes) != 2 {
		t.Fatalf("session/new: %+v %v", r.Modes, err)
	}
	if _, err := a.conn.SetSessionMode(context.Background(), acp.SetSessionModeRequest{SessionId: r.SessionId, ModeId: "code"}); err != nil {
		t.Fatalf("set_mode: %v", err)
	}
	if _, err := a.prompt(r.SessionId, "mode"); err != nil || a.said(r.SessionId) != "mode code\n" {
		t.Fatalf("after set_mode the agent says %q (%v)", a.said(r.SessionId), err)
	}
	if _, err := b.conn.SetSessionMode(context.Background(), acp.SetSessionModeRequest{SessionId: r.SessionId, ModeId: "ask"}); err == nil || !strings.Contains(err.Error(), "leased by another client") {
		t.Errorf("set_mode on another client's session: %v", err)
	}
}

// TestLeaseClientMethods: the agent's fs and terminal requests of a
// session go to the editor that owns it when the editor serves them, and
// are served by up (in the session's cwd) when it does not.
func TestLeaseClientMethods(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{service(t, "api")})
	h.wait("process:start", "api")
	editor := h.leaseWith("api", "yes", acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true}, Terminal: true})
	plain := h.lease("api", "yes")
	cwd := t.TempDir()
	file := filepath.Join(cwd, "notes.txt")
	if err := os.WriteFile(file, []byte("on disk"), 0o644); err != nil {
		t.Fatal(err)
	}
	se, sp := editor.newSession(t, cwd), plain.newSession(t, cwd)
	if _, err := editor.prompt(se, "read "+file); err != nil || editor.said(se) != "read: editor buffer of "+file+"\n" {
		t.Errorf("read through the editor: %q %v", editor.said(se), err)
	}
	if _, err := editor.prompt(se, "term echo hi"); err != nil || !strings.Contains(editor.said(se), "terminal: exit 0 truncated false: output of editor-term-1") {
		t.Errorf("terminal through the editor: %q %v", editor.said(se), err)
	}
	if _, err := plain.prompt(sp, "read "+file); err != nil || plain.said(sp) != "read: on disk\n" {
		t.Errorf("read served by up: %q %v", plain.said(sp), err)
	}
	if _, err := plain.prompt(sp, "term echo hi"); err != nil || !strings.Contains(plain.said(sp), "terminal: exit 0 truncated false: hi") {
		t.Errorf("terminal served by up: %q %v", plain.said(sp), err)
	}
}

// TestLeaseExtensions: extension methods pass through the lease both
// ways, requests as requests and notifications as notifications; one
// naming another client's session is refused.
func TestLeaseExtensions(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{service(t, "api")})
	h.wait("process:start", "api")
	a, b := h.lease("api", "yes"), h.lease("api", "yes")
	sa := a.newSession(t, t.TempDir())
	ctx := context.Background()
	params := map[string]any{"sessionId": sa, "x": 1}
	r, err := a.conn.CallExtension(ctx, "_test/echo", params)
	if err != nil || string(r) != `{"sessionId":"`+string(sa)+`","x":1}` {
		t.Fatalf("_test/echo: %s %v", r, err)
	}
	for range 2 {
		if err := a.conn.NotifyExtension(ctx, "_test/note", map[string]any{"sessionId": sa}); err != nil {
			t.Fatal(err)
		}
	}
	// Notifications and requests are not ordered with each other (the
	// agent handles requests concurrently): ask until both have arrived.
	for i := 0; !strings.HasSuffix(a.said(sa), "notes 2\n"); i++ {
		if _, err := a.prompt(sa, "notes"); err != nil || i == 1000 {
			t.Fatalf("notifications reached the agent: %q %v", a.said(sa), err)
		}
	}
	if _, err := a.prompt(sa, "ext"); err != nil || !strings.Contains(a.said(sa), `ext: {"pong":true}`) {
		t.Fatalf("agent to editor request: %q %v", a.said(sa), err)
	}
	a.mu.Lock()
	notices := a.notices
	a.mu.Unlock()
	if len(notices) != 1 || !strings.Contains(notices[0], string(sa)) {
		t.Fatalf("agent to editor notification: %q", notices)
	}
	if _, err := b.conn.CallExtension(ctx, "_test/echo", params); err == nil || !strings.Contains(err.Error(), "leased by another client") {
		t.Fatalf("b calling with a's session: %v", err)
	}
	if _, err := a.conn.CallExtension(ctx, "_test/unknown", nil); err == nil || !strings.Contains(err.Error(), "Method not found") {
		t.Fatalf("an extension the agent does not know: %v", err)
	}
}
