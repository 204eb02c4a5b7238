package acpclient

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/supervise"
)

// A Client is what the supervisor of `actctl up` runs.
var _ supervise.Process = (*Client)(nil)

// openSession opens a session on c with its own text recorder.
func openSession(t *testing.T, c *Client, o SessionOptions) (*Session, *textRecorder) {
	t.Helper()
	rec := newTextRecorder()
	o.Observer = rec
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := c.NewSession(ctx, o)
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	return s, rec
}

// TestSessionsRouted: two sessions on one backend have their own ids,
// cwds, turn counts, observers, rules and file roots.
func TestSessionsRouted(t *testing.T) {
	projA, projB := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(projA, "a.txt"), []byte("in A"), 0o644)
	c, recA := startTestAgent(t, Options{ClientCwd: projA, Rule: DenyAll, Preset: AllowAll})
	b, recB := openSession(t, c, SessionOptions{Cwd: projB, Rule: AllowAll})
	if b.ID() == c.SessionID() || b.Cwd() != projB || c.Primary().ID() != c.SessionID() {
		t.Fatalf("ids %s %s, cwd %s", c.SessionID(), b.ID(), b.Cwd())
	}
	prompt(t, c, "session")
	prompt(t, b, "session")
	prompt(t, b, "session")
	if want := "session " + c.SessionID() + " cwd " + projA + " turn 1 "; !strings.Contains(recA.String(), want) {
		t.Errorf("A: %q, want %q", recA.String(), want)
	}
	if want := "session " + b.ID() + " cwd " + projB + " turn 2 "; !strings.Contains(recB.String(), want) {
		t.Errorf("B: %q, want %q", recB.String(), want)
	}
	if strings.Contains(recA.String(), b.ID()) || strings.Contains(recB.String(), c.SessionID()) {
		t.Errorf("events crossed sessions:\nA %q\nB %q", recA.String(), recB.String())
	}
	resA, resB := prompt(t, c, "perm execute"), prompt(t, b, "perm execute")
	if !strings.Contains(recA.String(), "permission: no\n") || !strings.Contains(recB.String(), "permission: yes\n") {
		t.Errorf("rules not the sessions' own:\nA %q\nB %q", recA.String(), recB.String())
	}
	if resA.Permissions != (Permissions{Denied: 1}) || resB.Permissions != (Permissions{Allowed: 1}) || resB.SessionID != b.ID() {
		t.Errorf("results A %+v, B %+v", resA, resB)
	}
	secret := filepath.Join(projA, "a.txt")
	prompt(t, c, "read "+secret)
	prompt(t, b, "read "+secret)
	if !strings.Contains(recA.String(), "read: in A\n") {
		t.Errorf("A could not read its own file: %q", recA.String())
	}
	if !strings.Contains(recB.String(), "outside the session's directories") || strings.Contains(recB.String(), "in A") {
		t.Errorf("B read A's file: %q", recB.String())
	}
	prompt(t, b, "term pwd")
	if real, _ := filepath.EvalSymlinks(projB); !strings.Contains(recB.String(), "terminal: exit 0 truncated false: "+real+"\n") {
		t.Errorf("B's terminal not in its cwd: %q", recB.String())
	}
}

// TestSessionMessagesRouted: every message naming session B, and the
// answer to B's session/prompt, reach B's observer, and none of them the
// client's (the answer went to the client's: issue #22 item 16).
func TestSessionMessagesRouted(t *testing.T) {
	c, recA := startTestAgent(t, Options{})
	b, recB := openSession(t, c, SessionOptions{})
	prompt(t, b, "hello")
	recA.mu.Lock()
	defer recA.mu.Unlock()
	recB.mu.Lock()
	defer recB.mu.Unlock()
	if len(recB.recorder.lines) == 0 {
		t.Fatal("B's observer got no messages")
	}
	answers := 0
	for _, l := range recB.recorder.lines {
		if strings.Contains(l, `"result":{"stopReason":"end_turn"}`) {
			answers++
		} else if !strings.Contains(l, `"sessionId":"`+b.ID()+`"`) {
			t.Errorf("B got %s", l)
		}
	}
	if answers != 1 {
		t.Errorf("B got %d answers to its prompt, want 1: %q", answers, recB.recorder.lines)
	}
	for _, l := range recA.recorder.lines {
		if strings.Contains(l, `"stopReason"`) {
			t.Errorf("the client's observer got B's answer %s", l)
		}
		var m struct {
			Params struct {
				SessionID string `json:"sessionId"`
			} `json:"params"`
		}
		if json.Unmarshal([]byte(l), &m); m.Params.SessionID == b.ID() {
			t.Errorf("the client's observer got %s", l)
		}
	}
}

// TestUnknownSession: a request naming no open session is refused.
func TestUnknownSession(t *testing.T) {
	proj := t.TempDir()
	os.WriteFile(filepath.Join(proj, "f.txt"), []byte("content"), 0o644)
	c, rec := startTestAgent(t, Options{ClientCwd: proj})
	prompt(t, c, "read-as sess-nope "+filepath.Join(proj, "f.txt"))
	if text := rec.String(); !strings.Contains(text, "read error: ") || !strings.Contains(text, `unknown session \"sess-nope\"`) || !strings.Contains(text, "-32602") {
		t.Errorf("got %q", rec.String())
	}
}

// TestSessionPermissionsCounted: while A waits for a person, B's turn is
// answered by its rule; each turn counts only its own session's requests.
func TestSessionPermissionsCounted(t *testing.T) {
	asked, answer := make(chan struct{}), make(chan struct{})
	c, recA := startTestAgent(t, Options{Ask: func(ctx context.Context, call ToolCall, opts []acp.PermissionOption) (Decision, error) {
		close(asked)
		<-answer
		return Choose(true, false, opts), nil
	}})
	b, _ := openSession(t, c, SessionOptions{Rule: AllowAll})
	done := make(chan Result, 1)
	go func() { res, _ := c.Prompt(context.Background(), "perm edit"); done <- res }()
	<-asked
	if res := prompt(t, b, "perm execute"); res.Permissions != (Permissions{Allowed: 1}) {
		t.Errorf("B counts %+v", res.Permissions)
	}
	close(answer)
	if res := <-done; res.Permissions != (Permissions{Allowed: 1}) || !strings.Contains(recA.String(), "permission: yes") {
		t.Errorf("A counts %+v, text %q", res.Permissions, recA.String())
	}
}

// TestSessionClose: Close sends session/close when the agent advertises
// it (and only then); a closed session's Prompt fails.
func TestSessionClose(t *testing.T) {
	for _, advertised := range []bool{true, false} {
		env := map[string]string{}
		if !advertised {
			env[acptestagent.NoCloseVar] = "1"
		}
		c, rec := startTestAgent(t, Options{Launch: launch.Launch{Env: env}})
		if got := c.AgentInfo().AgentCapabilities.SessionCapabilities.Close != nil; got != advertised {
			t.Fatalf("AgentInfo: close capability %v, want %v", got, advertised)
		}
		b, _ := openSession(t, c, SessionOptions{})
		b.Close()
		prompt(t, c, "sessions")
		want := map[bool]string{true: "sessions 1\n", false: "sessions 2\n"}[advertised]
		if !strings.Contains(rec.String(), want) {
			t.Errorf("advertised %v: %q, want %q", advertised, rec.String(), want)
		}
		if _, err := b.Prompt(context.Background(), "hello"); err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("prompt after close: %v", err)
		}
	}
}

// TestSessionStubbornCancel: a non-primary session whose turn ignores
// session/cancel is closed after the grace period; the backend keeps
// serving the primary session; Close leaves nothing behind.
func TestSessionStubbornCancel(t *testing.T) {
	c, recA := startTestAgent(t, Options{Grace: 50 * time.Millisecond})
	b, recB := openSession(t, c, SessionOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := b.Prompt(ctx, "stubborn"); errc <- err }()
	pid, child := waitStreaming(t, recB)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	prompt(t, c, "hello")
	if !strings.Contains(recA.String(), "Hello from the test agent") {
		t.Errorf("primary session after B's cancel: %q", recA.String())
	}
	c.Close()
	assertGone(t, pid, child)
}

// TestPromptLog: every prompt is logged with its session id, newlines
// escaped.
func TestPromptLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "prompts.log")
	c, _ := startTestAgent(t, Options{Launch: launch.Launch{Env: map[string]string{acptestagent.PromptLogVar: log}}})
	b, _ := openSession(t, c, SessionOptions{})
	prompt(t, c, "hello\nthere")
	prompt(t, b, "session")
	got, err := os.ReadFile(log)
	if want := c.SessionID() + "\thello\\nthere\n" + b.ID() + "\tsession\n"; err != nil || string(got) != want {
		t.Errorf("log %q (%v), want %q", got, err, want)
	}
}

// TestExitErr: Done and Err after the backend exits with 3 (Err names the
// status and carries the stderr tail) and with 0 (no error).
func TestExitErr(t *testing.T) {
	c, rec := startTestAgent(t, Options{})
	if c.Err() != nil {
		t.Errorf("Err before the exit: %v", c.Err())
	}
	res := prompt(t, c, "exit 3")
	if res.StopReason != acp.StopReasonEndTurn || !strings.Contains(rec.String(), "exiting\n") {
		t.Errorf("result %+v, text %q", res, rec.String())
	}
	<-c.Done()
	var e *Error
	if err := c.Err(); !errors.As(err, &e) || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(e.Stderr, "test agent: session/new") {
		t.Errorf("Err %v", err)
	}
	c0, _ := startTestAgent(t, Options{})
	prompt(t, c0, "exit 0")
	<-c0.Done()
	if err := c0.Err(); err != nil {
		t.Errorf("exit 0: Err %v", err)
	}
}

// TestKillTerminate: Kill and Terminate end the backend and what it
// started; Err says how it ended.
func TestKillTerminate(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(*Client) error
		want string
	}{{"kill", (*Client).Kill, "killed"}, {"terminate", (*Client).Terminate, "terminated"}} {
		c, rec := startTestAgent(t, Options{})
		go func() { _, _ = c.Prompt(context.Background(), "stream") }()
		pid, child := waitStreaming(t, rec)
		if pid != c.Pid() {
			t.Errorf("%s: Pid %d, agent says %d", tc.name, c.Pid(), pid)
		}
		if err := tc.stop(c); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		<-c.Done()
		if err := c.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Err %v", tc.name, err)
		}
		assertGone(t, pid, child)
	}
}

// TestCrashAfter: the agent exits with 7 the given time after its start,
// whether or not the client was up by then.
func TestCrashAfter(t *testing.T) {
	self, _ := os.Executable()
	o := Options{ClientCwd: t.TempDir(), Launch: launch.Launch{Command: self, Workspace: t.TempDir(),
		Env: map[string]string{acptestagent.Var: "1", acptestagent.CrashAfterVar: "100ms"}}}
	o.Launch.Cwd = o.Launch.Workspace
	c, err := Start(context.Background(), o)
	if err != nil {
		if !strings.Contains(err.Error(), "exit status 7") {
			t.Fatalf("start: %v", err)
		}
		return
	}
	defer c.Close()
	<-c.Done()
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "exit status 7") || !strings.Contains(err.Error(), "crashing after") {
		t.Errorf("Err %v", err)
	}
}
