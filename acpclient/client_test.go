package acpclient

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schema"
)

func TestMain(m *testing.M) {
	if os.Getenv(acptestagent.Var) != "" {
		os.Exit(acptestagent.Main())
	}
	os.Exit(m.Run())
}

// textRecorder collects the text an agent streams and signals each line.
type textRecorder struct {
	recorder
	tmu   sync.Mutex
	text  strings.Builder
	lines chan string
}

func newTextRecorder() *textRecorder { return &textRecorder{lines: make(chan string, 100)} }

func (r *textRecorder) Event(e Event) {
	r.recorder.Event(e)
	if e.Kind == EventText {
		r.tmu.Lock()
		r.text.WriteString(e.Text)
		r.tmu.Unlock()
		r.lines <- e.Text
	}
}

func (r *textRecorder) String() string { r.tmu.Lock(); defer r.tmu.Unlock(); return r.text.String() }

// startTestAgent starts this test binary as the scripted agent with its
// workspace ws and the client's project proj. Without a Rule or Preset
// the agent may call every client method (Preset AllowAll).
func startTestAgent(t *testing.T, o Options) (*Client, *textRecorder) {
	t.Helper()
	if o.Rule == "" && o.Preset == "" {
		o.Preset = AllowAll
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec := newTextRecorder()
	if o.Launch.Command == "" {
		o.Launch.Command = self
	}
	if o.Launch.Env == nil {
		o.Launch.Env = map[string]string{}
	}
	o.Launch.Env[acptestagent.Var] = "1"
	if o.Launch.Workspace == "" {
		o.Launch.Workspace = t.TempDir()
	}
	o.Launch.Cwd = o.Launch.Workspace
	if o.ClientCwd == "" {
		o.ClientCwd = t.TempDir()
	}
	o.Observer = rec
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Start(ctx, o)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(c.Close)
	return c, rec
}

// prompter is a Client (its primary session) or a Session.
type prompter interface {
	Prompt(ctx context.Context, text string) (Result, error)
}

func prompt(t *testing.T, c prompter, text string) Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := c.Prompt(ctx, text)
	if err != nil {
		t.Fatalf("prompt %q: %v", text, err)
	}
	return res
}

// TestPermissionsByRule: each tool kind under each rule gets the option
// the policy table says, the agent sees that id, and the turn's counts
// match.
func TestPermissionsByRule(t *testing.T) {
	for _, tc := range []struct {
		rule Rule
		kind string
		want string
	}{
		{AllowReads, "read", "yes"}, {AllowReads, "edit", "no"}, {AllowReads, "execute", "no"},
		{AllowEdits, "edit", "yes"}, {AllowEdits, "delete", "yes"}, {AllowEdits, "execute", "no"},
		{AllowAll, "execute", "yes"}, {DenyAll, "read", "no"},
	} {
		c, rec := startTestAgent(t, Options{Rule: tc.rule})
		res := prompt(t, c, "perm "+tc.kind)
		if !strings.Contains(rec.String(), "permission: "+tc.want+"\n") {
			t.Errorf("%s/%s: agent saw %q, want %s", tc.rule, tc.kind, rec.String(), tc.want)
		}
		allowed := tc.want == "yes"
		if (res.Permissions.Allowed == 1) != allowed || res.Permissions.Allowed+res.Permissions.Denied != 1 {
			t.Errorf("%s/%s: counts %+v", tc.rule, tc.kind, res.Permissions)
		}
		final := StateFailed
		if allowed {
			final = StateCompleted
		}
		decided := StateDenied
		if allowed {
			decided = StateAllowed
		}
		if got := rec.states("call-" + tc.kind); !subsequence(got, StateAwaiting, decided, final) || got[len(got)-1] != final {
			t.Errorf("%s/%s: states %v", tc.rule, tc.kind, got)
		}
		if res.StopReason != acp.StopReasonEndTurn || res.SessionID == "" {
			t.Errorf("result %+v", res)
		}
	}
}

// subsequence reports whether want appear in got in this order.
func subsequence(got []State, want ...State) bool {
	for _, s := range got {
		if len(want) > 0 && s == want[0] {
			want = want[1:]
		}
	}
	return len(want) == 0
}

// TestAskCancelledOnCancel: a person asked about a permission who does not
// answer before the turn is cancelled: the request is answered
// "cancelled" and the turn ends.
func TestAskCancelledOnCancel(t *testing.T) {
	asked := make(chan struct{})
	c, rec := startTestAgent(t, Options{Ask: func(ctx context.Context, call ToolCall, _ []acp.PermissionOption) (Decision, error) {
		close(asked)
		<-ctx.Done()
		return Decision{}, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-asked; cancel() }()
	res, err := c.Prompt(ctx, "perm edit")
	if !errors.Is(err, context.Canceled) && err != nil {
		t.Fatalf("prompt: %v", err)
	}
	if res.Permissions.Cancelled != 1 || !strings.Contains(rec.String(), "permission: cancelled") {
		t.Errorf("permissions %+v, text %q", res.Permissions, rec.String())
	}
}

// TestFSConfined: reads and writes inside the session cwd and the
// workspace work; outside them, also through a symlink, they are refused
// with an error and nothing is written.
func TestFSConfined(t *testing.T) {
	proj, ws, outside := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(proj, "in.txt"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("secret"), 0o644)
	os.Symlink(outside, filepath.Join(proj, "link"))
	c, rec := startTestAgent(t, Options{ClientCwd: proj, Launch: launch.Launch{Workspace: ws, SessionCwd: schema.CwdClient}})
	for _, p := range []string{
		"read " + filepath.Join(proj, "in.txt"),
		"write " + filepath.Join(ws, "sub", "new.txt") + " made here",
		"read " + filepath.Join(outside, "secret.txt"),
		"read " + filepath.Join(proj, "link", "secret.txt"),
		"write " + filepath.Join(proj, "link", "evil.txt") + " x",
		"write " + filepath.Join(proj, "..", filepath.Base(outside), "evil2.txt") + " x",
		"read relative.txt",
	} {
		prompt(t, c, p)
	}
	text := rec.String()
	if !strings.Contains(text, "read: inside\n") || !strings.Contains(text, "wrote\n") {
		t.Errorf("allowed operations failed:\n%s", text)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "sub", "new.txt")); string(b) != "made here" {
		t.Errorf("new.txt = %q", b)
	}
	if n := strings.Count(text, "outside the session's directories"); n != 4 || strings.Contains(text, "secret\n") {
		t.Errorf("want 4 refusals and no secret, got %d:\n%s", n, text)
	}
	if !strings.Contains(text, "read error:") || !strings.Contains(text, "must be absolute") {
		t.Errorf("relative path not refused:\n%s", text)
	}
	for _, f := range []string{"evil.txt", "evil2.txt"} {
		if _, err := os.Stat(filepath.Join(outside, f)); err == nil {
			t.Errorf("%s written outside the roots", f)
		}
	}
}

// TestTerminal: a terminal runs a real process in the session cwd; its
// output is cut to the byte limit the agent asked for (64), keeping the end.
func TestTerminal(t *testing.T) {
	proj := t.TempDir()
	c, rec := startTestAgent(t, Options{ClientCwd: proj})
	real, _ := filepath.EvalSymlinks(proj)
	prompt(t, c, "term pwd; exit 7")
	if want := "terminal: exit 7 truncated false: " + real + "\n"; !strings.Contains(rec.String(), want) {
		t.Fatalf("terminal: %q, want %q", rec.String(), want)
	}
	prompt(t, c, "term yes x | head -c 200; echo the-end")
	text := rec.String()
	if !strings.Contains(text, "truncated true: ") || !strings.HasSuffix(text, "x\nx\nthe-end\n\n") {
		t.Errorf("output not cut to its last 64 bytes: %q", text)
	}
}

var streamLine = regexp.MustCompile(`streaming pid=(\d+) child=(\d+)`)

// waitStreaming reads text lines until the agent says it streams, and
// returns its pid and its child's.
func waitStreaming(t *testing.T, rec *textRecorder) (int, int) {
	t.Helper()
	for line := range rec.lines {
		if m := streamLine.FindStringSubmatch(line); m != nil {
			a, _ := strconv.Atoi(m[1])
			b, _ := strconv.Atoi(m[2])
			return a, b
		}
	}
	t.Fatal("no streaming line")
	return 0, 0
}

// gone reports whether pid has exited (a zombie waiting for init to reap
// it counts as exited).
func gone(pid int) bool {
	if !launch.PIDAlive(pid) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// assertGone polls (bounded: reaping by init is asynchronous) until every
// pid has exited.
func assertGone(t *testing.T, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for _, pid := range pids {
		for !gone(pid) {
			if time.Now().After(deadline) {
				t.Errorf("process %d outlived the client", pid)
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestCancelTurn: cancelling a streaming turn sends session/cancel; the
// agent ends the turn "cancelled"; Close leaves no process behind.
func TestCancelTurn(t *testing.T) {
	for _, stubborn := range []bool{false, true} {
		// A stubborn agent ignores session/cancel: it is killed after the
		// grace period (short here, the default is 5 s). One that ends the
		// turn must have all the time it needs to answer: with a short
		// grace a loaded machine killed it first (stop reason "").
		grace := time.Minute
		if stubborn {
			grace = 50 * time.Millisecond
		}
		c, rec := startTestAgent(t, Options{Grace: grace})
		ctx, cancel := context.WithCancel(context.Background())
		word := map[bool]string{false: "stream", true: "stubborn"}[stubborn]
		type out struct {
			res Result
			err error
		}
		done := make(chan out, 1)
		go func() { r, err := c.Prompt(ctx, word); done <- out{r, err} }()
		pid, child := waitStreaming(t, rec)
		cancel()
		o := <-done
		if !errors.Is(o.err, context.Canceled) {
			t.Errorf("%s: err %v, want cancelled", word, o.err)
		}
		if !stubborn && o.res.StopReason != acp.StopReasonCancelled {
			t.Errorf("stream: stop reason %q", o.res.StopReason)
		}
		c.Close()
		assertGone(t, pid, child)
	}
}

// TestCrashMidTurn: the backend exits during a turn: an ErrCrash naming
// the command with its stderr tail.
func TestCrashMidTurn(t *testing.T) {
	c, _ := startTestAgent(t, Options{})
	_, err := c.Prompt(context.Background(), "crash")
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrCrash {
		t.Fatalf("err %v, want ErrCrash", err)
	}
	if !strings.Contains(e.Error(), "exit status 3") || !strings.Contains(e.Error(), "test agent: crashing on purpose") {
		t.Errorf("message lacks exit status or stderr tail: %v", e)
	}
}

// TestProtocolBreak: a line on stdout that is not JSON ends the turn
// with an error quoting it and the stderr tail; the backend is stopped.
func TestProtocolBreak(t *testing.T) {
	c, _ := startTestAgent(t, Options{})
	pid := c.Pid()
	_, err := c.Prompt(context.Background(), "garbage")
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrCrash || !strings.Contains(err.Error(), `"this is not JSON-RPC"`) || !strings.Contains(err.Error(), "test agent: writing garbage") {
		t.Fatalf("err %v", err)
	}
	c.Close()
	assertGone(t, pid)
}

// TestMissingBackend: a command that does not exist fails Start at once
// with the command and the install hint.
func TestMissingBackend(t *testing.T) {
	_, err := Start(context.Background(), Options{ClientCwd: t.TempDir(), Launch: launch.Launch{Command: "actctl-no-such-backend", Install: "npm install -g no-such", Workspace: t.TempDir()}})
	var e *Error
	if !errors.As(err, &e) || e.Kind != ErrStart || !strings.Contains(err.Error(), `"actctl-no-such-backend"`) || !strings.Contains(err.Error(), "npm install -g no-such") {
		t.Fatalf("err %v", err)
	}
}

// lookupFor is cfg's MCP server lookup for agent, as agentprep gives it.
func lookupFor(cfg *schema.Config, agent string) func(string) (schema.MCPServer, bool) {
	return func(ref string) (schema.MCPServer, bool) { return cfg.MCPServerFor(ref, agent) }
}

// TestMCPServers: ACP's mcpServers shape, hub names shortened, arrays
// never null; the reserved "actctl" runs actctl mcp as the agent.
func TestMCPServers(t *testing.T) {
	cfg := &schema.Config{Root: "/ws", Home: "/h", MCPServers: map[string]schema.MCPServer{
		"src@gh": {Command: "gh-mcp", Env: map[string]string{"B": "2", "A": "1"}},
		"web":    {URL: "https://x/mcp", Headers: map[string]string{"Authorization": "Bearer t"}},
	}}
	got, err := MCPServers(lookupFor(cfg, "me"), []string{"src@gh", "web", "actctl"})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	want := `[{"args":[],"command":"gh-mcp","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"name":"gh"},{"headers":[{"name":"Authorization","value":"Bearer t"}],"name":"web","type":"http","url":"https://x/mcp"},{"args":["mcp","-C","/ws","--home","/h","--as","me"],"command":"actctl","env":[],"name":"actctl"}]`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	if _, err := MCPServers(lookupFor(cfg, "me"), []string{"nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("undeclared server: %v", err)
	}
}
