//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/actctl/actctl/internal/testutil"
	acp "github.com/coder/acp-go-sdk"
)

// gatedWorkspace is a workspace whose agents' one plugin is a command
// that says it started on the fifo started, then waits for the fifo
// gate, which the test never opens: it runs until it is cancelled.
func gatedWorkspace(t *testing.T) (root, home, started string) {
	t.Helper()
	root, home = t.TempDir(), filepath.Join(t.TempDir(), "home")
	started, gate := filepath.Join(root, "started.fifo"), filepath.Join(root, "gate.fifo")
	for _, f := range []string{started, gate} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { // a plugin left waiting (the test failed) is let go
		if f, err := os.OpenFile(gate, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	})
	writeConfigTB(t, root, `package actant
`+scriptedBackend(t, `ACTCTL_TEST_PROMPT_LOG: "`+filepath.Join(root, "prompts.log")+`"`)+`
templates: {
	gated: {backend: "scripted", plugins: ["gate"]}
	gateddesk: {backend: "scripted", archetype: "service", plugins: ["gate"]}
}
agents: {
	gated: template: "gated"
	gatedesk: template: "gateddesk"
}
plugins: gate: {kind: "command", command: "sh", args: ["-c", "echo started > `+started+`; read x < `+gate+`; cat"], timeout: "1h"}
`)
	return root, home, started
}

// cancelDuringPlugin prompts in a new session in cwd, waits until the
// gated plugin runs, cancels the turn and returns its answer.
func cancelDuringPlugin(t *testing.T, e *editorClient, cwd, started string) (acp.PromptResponse, error) {
	t.Helper()
	s, err := e.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	type answer struct {
		r   acp.PromptResponse
		err error
	}
	done := make(chan answer, 1)
	go func() {
		r, err := e.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("echo never-sent")}})
		done <- answer{r, err}
	}()
	if b, err := os.ReadFile(started); err != nil || string(b) != "started\n" { // the plugin runs
		t.Fatalf("the plugin's start: %q %v", b, err)
	}
	if err := e.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: s.SessionId}); err != nil {
		t.Fatal(err)
	}
	a, ok := testutil.Within(done) // the plugin would wait an hour
	if !ok {
		t.Fatal("the cancel did not end the turn while its inbound plugin ran")
	}
	return a.r, a.err
}

// TestProxyCancelDuringPlugin: a session/cancel the editor sends while
// an inbound plugin runs on `actctl proxy` ends the plugin's work at
// once: the turn ends "cancelled" and the prompt never reaches the
// agent (docs/plugins.md, "On the proxy").
func TestProxyCancelDuringPlugin(t *testing.T) {
	root, home, started := gatedWorkspace(t)
	e, p := startEditor(t, root, home, "gated")
	r, err := cancelDuringPlugin(t, e, root, started)
	if err != nil || r.StopReason != acp.StopReasonCancelled {
		t.Errorf("the cancelled turn: %+v %v\nstderr %s", r, err, p.stderr)
	}
	p.close()
	if b, _ := os.ReadFile(filepath.Join(root, "prompts.log")); strings.Contains(string(b), "never-sent") {
		t.Errorf("the cancelled prompt reached the agent:\n%s", b)
	}
}

// TestLeaseCancelDuringPlugin: the same on `proxy --lease`, where up
// runs the plugin.
func TestLeaseCancelDuringPlugin(t *testing.T) {
	root, home, started := gatedWorkspace(t)
	up := startUp(t, root, home, "gatedesk")
	up.started("gatedesk")
	e, p := startEditor(t, root, home, "gatedesk", "--lease")
	r, err := cancelDuringPlugin(t, e, t.TempDir(), started)
	if err != nil || r.StopReason != acp.StopReasonCancelled {
		t.Errorf("the cancelled turn: %+v %v\nstderr %s", r, err, p.stderr)
	}
	p.close()
	if b, _ := os.ReadFile(filepath.Join(root, "prompts.log")); strings.Contains(string(b), "never-sent") {
		t.Errorf("the cancelled prompt reached the agent:\n%s", b)
	}
}

// TestSubAgentPerSession: an agent plugin keeps one sub-agent session
// per main session: two turns of the editor's session ask the
// translator's one process and session for each plugin, a second main
// session gets its own, and none is left running once the proxy
// session ends.
func TestSubAgentPerSession(t *testing.T) {
	root, home := pluginsWorkspace(t)
	e, p := startEditor(t, root, home, "developer")
	for range 2 { // two main sessions of two turns each
		s, err := e.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: root, McpServers: []acp.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range []string{"echo hello", "echo world"} {
			if _, err := e.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock(text)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	p.close()
	b, err := os.ReadFile(filepath.Join(root, "prompts.log"))
	if err != nil {
		t.Fatal(err)
	}
	// The translator's sessions, in order, per plugin (its prompt's
	// first two words).
	sessions := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sid, text, _ := strings.Cut(l, "\t")
		if f := strings.Fields(text); len(f) > 1 && f[0] == "translate" {
			sessions[f[1]] = append(sessions[f[1]], sid)
		}
	}
	var pids []int
	for lang, sids := range sessions {
		if len(sids) != 4 || sids[0] != sids[1] || sids[2] != sids[3] || sids[1] == sids[2] {
			t.Errorf("translate %s: sessions %q, want one per main session, for its two turns", lang, sids)
		}
		for _, sid := range sids {
			var pid, n int
			if _, err := fmt.Sscanf(sid, "sess-%d-%d", &pid, &n); err != nil {
				t.Fatalf("session id %q: %v", sid, err)
			}
			pids = append(pids, pid)
		}
	}
	if len(sessions) != 2 {
		t.Errorf("translator sessions %v, want the inbound and the outbound plugin's", sessions)
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("sub-agent process %d still there after the proxy session: %v", pid, err)
		}
	}
}
