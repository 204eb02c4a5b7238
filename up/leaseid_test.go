package up

import (
	"context"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/control"
)

// TestLeaseResumeAcrossParents: a client that comes back from another
// process of the same user (acpx restarting its queue process, without
// ACTCTL_LEASE_CLIENT) loads and resumes its idle session by the id it
// saved; another user, or a client declaring another name, is told the
// session is unknown; listing stays with the identity that left it.
func TestLeaseResumeAcrossParents(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{service(t, "api")})
	h.wait("process:start", "api")
	as := func(claim string) *leaseClient {
		return h.leaseAs(control.Request{Op: control.OpLease, Agent: "api", Client: claim}, "yes", acp.ClientCapabilities{})
	}
	a := as("uid 1000 parent 41")
	sid := a.newSession(t, t.TempDir())
	if _, err := a.prompt(sid, "hello"); err != nil {
		t.Fatal(err)
	}
	a.close()
	h.clk.WaitPending(1) // the idle timer of the session
	ctx := context.Background()
	load := func(c *leaseClient) error {
		_, err := c.conn.LoadSession(ctx, acp.LoadSessionRequest{SessionId: sid, Cwd: "/", McpServers: []acp.McpServer{}})
		return err
	}
	for _, claim := range []string{"uid 1001 parent 41", "uid 1000 name other-editor", "uid 1001 parent 42"} {
		c := as(claim)
		if err := load(c); err == nil || !strings.Contains(err.Error(), "unknown session") {
			t.Errorf("load by %q: %v", claim, err)
		}
		if _, err := c.conn.ResumeSession(ctx, acp.ResumeSessionRequest{SessionId: sid, Cwd: "/"}); err == nil || !strings.Contains(err.Error(), "unknown session") {
			t.Errorf("resume by %q: %v", claim, err)
		}
	}
	other := as("uid 1000 parent 43")
	if l, err := other.conn.ListSessions(ctx, acp.ListSessionsRequest{}); err != nil || len(l.Sessions) != 0 {
		t.Errorf("another editor of the user lists %+v %v", l.Sessions, err)
	}
	if _, err := other.prompt(sid, "hello"); err == nil || !strings.Contains(err.Error(), "resume or session/load it first") {
		t.Errorf("prompt to an idle session before loading it: %v", err)
	}
	back := as("uid 1000 parent 42") // the same user, from a new process
	if err := load(back); err != nil {
		t.Fatalf("load by the same user from a new process: %v", err)
	}
	if _, err := back.prompt(sid, "session"); err != nil || !strings.Contains(back.said(sid), "turn 2") {
		t.Fatalf("the loaded session is not the first one: %v %q", err, back.said(sid))
	}
	if l, err := back.conn.ListSessions(ctx, acp.ListSessionsRequest{}); err != nil || len(l.Sessions) != 1 {
		t.Errorf("the client that loaded it lists %+v %v", l.Sessions, err)
	}
	if err := load(other); err == nil || !strings.Contains(err.Error(), "leased by another client") {
		t.Errorf("load of a session another client holds: %v", err)
	}
}

// TestNewLeaseID: the identity read from a proxy's claim; the socket
// peer's uid replaces the claimed one.
func TestNewLeaseID(t *testing.T) {
	for _, tc := range []struct {
		claim string
		uid   int
		known bool
		want  leaseID
	}{
		{"uid 1000 parent 42", 0, false, leaseID{user: "uid 1000", parent: "42"}},
		{"uid 1000 name my editor", 0, false, leaseID{user: "uid 1000", name: "my editor"}},
		{"uid 1000 parent 42", 7, true, leaseID{user: "peer uid 7", parent: "42"}},
		{"", 0, false, leaseID{}},
		{"odd", 0, false, leaseID{parent: "odd"}},
	} {
		if got := newLeaseID(tc.claim, tc.uid, tc.known); got != tc.want {
			t.Errorf("newLeaseID(%q, %d, %v) = %+v, want %+v", tc.claim, tc.uid, tc.known, got, tc.want)
		}
	}
}
