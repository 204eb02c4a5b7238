package up

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/control"
)

// TestLeaseUnansweredRequest: a permission request the holder of a
// session never answers, because it went away, is answered "cancelled" for
// it: the agent's turn ends, and a client that resumes the session finds
// the agent free (the old turn's last words may reach it too).
func TestLeaseUnansweredRequest(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{service(t, "api")})
	h.wait("process:start", "api")
	a := h.lease("api", "hold")
	sid := a.newSession(t, t.TempDir())
	go func() { _, _ = a.prompt(sid, "perm-rich") }()
	<-a.held
	a.close()
	b := h.lease("api", "yes")
	if _, err := b.conn.ResumeSession(context.Background(), acp.ResumeSessionRequest{SessionId: sid, Cwd: "/"}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if _, err := b.prompt(sid, "last-permission"); err != nil || !strings.HasSuffix(b.said(sid), "last-permission: cancelled\n") {
		t.Fatalf("the held request at the agent: %q %v", b.said(sid), err)
	}
}

// TestLeaseClientStopsReading: a lease client that stops reading what the
// agent sends it is disconnected once too much waits for it; the warm
// agent is not held up, and the session is left idle for a client that
// comes back.
func TestLeaseClientStopsReading(t *testing.T) {
	old := maxQueued
	t.Cleanup(func() { maxQueued = old }) // after the harness's cleanups
	maxQueued = 64 << 10
	h := newHarness(t, nil)
	f := injectFaults(t, h)
	h.m.Sync([]Spec{service(t, "api")})
	h.wait("process:start", "api")
	serve, err := h.m.Upgrade(context.Background(), control.Request{Op: control.OpLease, Agent: "api"})
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := net.Pipe()
	defer ours.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = serve(context.Background(), theirs, theirs)
	}()
	br := bufio.NewReader(ours)
	call := func(line string) string {
		t.Helper()
		if _, err := ours.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
		resp, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	call(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	var r struct {
		Result acp.NewSessionResponse `json:"result"`
	}
	if err := json.Unmarshal([]byte(call(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"`+t.TempDir()+`","mcpServers":[]}}`)), &r); err != nil || r.Result.SessionId == "" {
		t.Fatalf("session/new: %+v %v", r, err)
	}
	if _, err := ours.Write([]byte(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + string(r.Result.SessionId) + `","prompt":[{"type":"text","text":"flood 200"}]}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	<-done // nothing more is read: up ends the connection
	theirs.Close()
	maxQueued = old // for the client below: the flood may still be going on
	if !f.logged("api: lease client: over 64 KiB queued that it does not read: its connection ends") {
		t.Errorf("not logged: %q", f.logs)
	}
	b := h.lease("api", "yes")
	if _, err := b.conn.ResumeSession(context.Background(), acp.ResumeSessionRequest{SessionId: r.Result.SessionId, Cwd: "/"}); err != nil {
		t.Fatalf("resume: %v", err)
	}
	if _, err := b.prompt(r.Result.SessionId, "session"); err != nil || !strings.Contains(b.said(r.Result.SessionId), "turn 2") {
		t.Fatalf("after the flood: %q %v", b.said(r.Result.SessionId), err)
	}
}
