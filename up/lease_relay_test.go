package up

import (
	"context"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
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
