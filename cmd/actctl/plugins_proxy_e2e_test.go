//go:build unix

package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// editorClient is an editor on `actctl proxy` through the ACP SDK's
// client: it records the agent message chunks of its sessions, one entry
// a chunk.
type editorClient struct {
	conn *acp.ClientSideConnection
	mu   sync.Mutex
	said []string
}

// startEditor starts `actctl proxy ARGS` in root and connects the SDK's
// client to it, initialized.
func startEditor(t *testing.T, root, home string, args ...string) (*editorClient, *acpClient) {
	t.Helper()
	p := startProxy(t, root, home, args...)
	e := &editorClient{}
	e.conn = acp.NewClientSideConnection(e, p.in, p.out)
	e.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := e.conn.Initialize(context.Background(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatalf("initialize: %v\n%s", err, p.stderr)
	}
	return e, p
}

// turn opens a session in cwd and prompts text; it returns the chunks
// the turn showed and the prompt's error.
func (e *editorClient) turn(t *testing.T, cwd, text string) ([]string, error) {
	t.Helper()
	s, err := e.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	e.mu.Lock()
	e.said = nil
	e.mu.Unlock()
	_, err = e.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.said, err
}

func (e *editorClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
		e.mu.Lock()
		e.said = append(e.said, c.Content.Text.Text)
		e.mu.Unlock()
	}
	return nil
}

func (e *editorClient) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
}
func (e *editorClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile)
}
func (e *editorClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsWriteTextFile)
}
func (e *editorClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}
func (e *editorClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, nil
}
func (e *editorClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, nil
}
func (e *editorClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, nil
}
func (e *editorClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, nil
}

// TestProxyPlugins: through the built binary and the ACP SDK's client,
// an editor's prompt on `actctl proxy` passes the inbound chain (redact,
// the translator sub-agent, the prefix) before the agent sees it, and
// the answer the outbound chain: the translator of stream "message"
// sends the whole message once, at the turn's end; no token reaches the
// agent or the editor, and the proxy's stderr shows the steps by size.
func TestProxyPlugins(t *testing.T) {
	root, home := pluginsWorkspace(t)
	e, p := startEditor(t, root, home, "developer")
	said, err := e.turn(t, root, "echo 你好 世界 tok-12345")
	if want := "Team rules: small commits. | echo 你好 世界 [REDACTED]"; err != nil || len(said) != 1 || said[0] != want {
		t.Fatalf("the editor got %q (%v), want one chunk %q\nstderr %s", said, err, want, p.stderr)
	}
	said, err = e.turn(t, root, "leak")
	if err != nil || strings.Join(said, "") != "leaked [REDACTED]" {
		t.Errorf("a token the agent wrote: %q (%v)", said, err)
	}
	p.close()
	prompts, err := os.ReadFile(filepath.Join(root, "prompts.log"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(prompts), "tok-") || !strings.Contains(string(prompts), "\tTeam rules: small commits.echo hello world [REDACTED]\n") {
		t.Errorf("prompts the agents received:\n%s", prompts)
	}
	if s := p.stderr.String(); !strings.Contains(s, "plugin to-english (inbound): ") || !strings.Contains(s, "plugin to-user (outbound): ") || strings.Contains(s, "tok-") {
		t.Errorf("the proxy's stderr:\n%s", s)
	}
}

// TestProxyPluginFailures: on the proxy, an inbound plugin that fails
// with onError "fail" answers the prompt with an error naming it and the
// agent never sees the prompt; an outbound one with "pass" lets the
// message on unchanged after one warning in the session.
func TestProxyPluginFailures(t *testing.T) {
	root, home := pluginsWorkspace(t)
	e, p := startEditor(t, root, home, "fragile")
	said, err := e.turn(t, root, "echo hello")
	if err == nil || !strings.Contains(err.Error(), "plugin crashing-fail (inbound) failed: agent translator") || len(said) != 0 {
		t.Errorf("fail: %q, %v", said, err)
	}
	p.close()
	if b, _ := os.ReadFile(filepath.Join(root, "prompts.log")); strings.Contains(string(b), "\techo hello") {
		t.Errorf("the failed turn's prompt was sent:\n%s", b)
	}
	e, p = startEditor(t, root, home, "lenient")
	said, err = e.turn(t, root, "echo hello")
	if err != nil || len(said) != 2 || !strings.HasPrefix(said[0], "actctl: warning: plugin crashing (outbound) failed, the text went on unchanged: agent translator") || said[1] != "echo hello" {
		t.Errorf("pass: %q, %v", said, err)
	}
	p.close()
}

// TestLeasePlugins: `proxy --lease` on the warm service up holds runs
// the agent's chains as the proxy does: the prompt is redacted and
// prefixed before the agent sees it, the answer redacted and, by the
// translator of stream "message", sent whole at the turn's end.
func TestLeasePlugins(t *testing.T) {
	root, home := pluginsWorkspace(t)
	up := startUp(t, root, home, "helpdesk")
	up.started("helpdesk")
	e, p := startEditor(t, root, home, "helpdesk", "--lease")
	said, err := e.turn(t, t.TempDir(), "echo 你好 tok-555")
	if want := "Team rules: small commits. | echo 你好 [REDACTED]"; err != nil || len(said) != 1 || said[0] != want {
		t.Errorf("the editor got %q (%v), want one chunk %q\nstderr %s", said, err, want, p.stderr)
	}
	p.close()
	if b, _ := os.ReadFile(filepath.Join(root, "prompts.log")); strings.Contains(string(b), "tok-555") || !strings.Contains(string(b), "\tTeam rules: small commits.echo 你好 [REDACTED]\n") {
		t.Errorf("prompts the agents received:\n%s", b)
	}
}

// TestDebugACP: --debug-acp on run, and ACTCTL_DEBUG_ACP=1 on proxy,
// give a line on stderr per ACP message (direction, kind, method,
// session, update and tool kinds, size) and per plugin step, never the
// text: the token the prompt carried is in none of them.
func TestDebugACP(t *testing.T) {
	root, home := pluginsWorkspace(t)
	r := actctl(t, root, home, "run", "developer", "--debug-acp", "-p", "echo hello tok-4242")
	for _, want := range []string{"client->agent request session/prompt id=", "agent->client notification session/update session=", "update=agent_message_chunk", "actctl: plugin step: plugin rules (inbound)"} {
		if r.Code != 0 || !strings.Contains(r.Stderr, want) {
			t.Errorf("run --debug-acp: exit %d, stderr lacks %q:\n%s", r.Code, want, r.Stderr)
		}
	}
	if strings.Contains(r.Stderr, "tok-4242") || strings.Contains(r.Stderr, "hello") {
		t.Errorf("run --debug-acp shows a message's text:\n%s", r.Stderr)
	}
	t.Setenv("ACTCTL_DEBUG_ACP", "1")
	e, p := startEditor(t, root, home, "developer")
	if _, err := e.turn(t, root, "echo hello tok-4242"); err != nil {
		t.Fatal(err)
	}
	p.close()
	if s := p.stderr.String(); !strings.Contains(s, "client->agent request session/prompt id=") || !strings.Contains(s, "agent->client response id=") || strings.Contains(s, "tok-4242") {
		t.Errorf("proxy with ACTCTL_DEBUG_ACP=1:\n%s", s)
	}
}

// TestDebugACPLease: --debug-acp on `proxy --lease` traces a line per
// ACP message both ways, what the editor sends and what it gets (after
// up's plugins), never the text: the token the prompt carried is in
// none of them.
func TestDebugACPLease(t *testing.T) {
	root, home := pluginsWorkspace(t)
	up := startUp(t, root, home, "helpdesk")
	up.started("helpdesk")
	e, p := startEditor(t, root, home, "helpdesk", "--lease", "--debug-acp")
	if _, err := e.turn(t, t.TempDir(), "echo hello tok-4242"); err != nil {
		t.Fatal(err)
	}
	p.close()
	s := p.stderr.String()
	for _, want := range []string{"client->agent request session/prompt id=", "agent->client notification session/update session=", "update=agent_message_chunk", "agent->client response id="} {
		if !strings.Contains(s, want) {
			t.Errorf("proxy --lease --debug-acp: stderr lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "tok-4242") || strings.Contains(s, "hello") {
		t.Errorf("proxy --lease --debug-acp shows a message's text:\n%s", s)
	}
}

// sessionLogOf is the last session log of agent as `actctl logs AGENT
// --session last -o json` prints it, checked to be listed by --sessions.
func sessionLogOf(t *testing.T, root, home, agent string) string {
	t.Helper()
	list := actctl(t, root, home, "logs", agent, "--sessions")
	names := strings.Fields(list.Stdout)
	if list.Code != 0 || len(names) != 1 {
		t.Fatalf("logs %s --sessions: exit %d, %q\n%s", agent, list.Code, list.Stdout, list.Stderr)
	}
	r := actctl(t, root, home, "logs", agent, "--session", names[0], "-o", "json")
	if r.Code != 0 {
		t.Fatalf("logs %s --session %s: exit %d\n%s", agent, names[0], r.Code, r.Stderr)
	}
	return r.Stdout
}

// TestProxySessionLog: a proxy session's messages are logged as a
// task's are, both ways as they went (the prompt after the inbound
// chain, the answer after the outbound one), with the plugin steps;
// `actctl logs` lists and prints it, and the proxy's stderr says where
// it is. No token, of the prompt or of the agent's answer, reaches the
// file.
func TestProxySessionLog(t *testing.T) {
	root, home := pluginsWorkspace(t)
	e, p := startEditor(t, root, home, "developer")
	if _, err := e.turn(t, root, "echo 你好 tok-12345"); err != nil {
		t.Fatal(err)
	}
	if said, err := e.turn(t, root, "leak"); err != nil || strings.Join(said, "") != "leaked [REDACTED]" {
		t.Fatalf("leak: %q %v", said, err)
	}
	p.close()
	if !strings.Contains(p.stderr.String(), "this session's messages are logged in ") {
		t.Errorf("the proxy does not say where its log is:\n%s", p.stderr)
	}
	log := sessionLogOf(t, root, home, "developer")
	for _, want := range []string{`"method":"session/prompt"`, `Team rules: small commits.`, `echo hello [REDACTED]`, `leaked [REDACTED]`, `"method":"_actctl/plugin"`, `"stopReason":"end_turn"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the session log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "tok-") {
		t.Errorf("a token in the session log:\n%s", log)
	}
}

// TestLeaseSessionLog: a `proxy --lease` connection's messages are
// logged by up as a proxy session's are, what the editor sent and got
// after the chains: up's record of the lease never holds a token, of the
// prompt or of the agent's own answer before the outbound chain.
func TestLeaseSessionLog(t *testing.T) {
	root, home := pluginsWorkspace(t)
	up := startUp(t, root, home, "helpdesk")
	up.started("helpdesk")
	e, p := startEditor(t, root, home, "helpdesk", "--lease")
	cwd := t.TempDir()
	if _, err := e.turn(t, cwd, "echo 你好 tok-555"); err != nil {
		t.Fatal(err)
	}
	if said, err := e.turn(t, cwd, "leak"); err != nil || strings.Join(said, "") != "leaked [REDACTED]" {
		t.Fatalf("leak: %q %v", said, err)
	}
	p.close()
	log := sessionLogOf(t, root, home, "helpdesk")
	for _, want := range []string{`"method":"session/prompt"`, `Team rules: small commits.`, `[REDACTED]`, `"method":"_actctl/plugin"`, `"stopReason":"end_turn"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the lease's log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "tok-") {
		t.Errorf("a token in the lease's log:\n%s", log)
	}
}
