package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/rpcpeer"
	"github.com/actctl/actctl/schema"
)

// A full turn through the relay: every byte the agent sends reaches the
// client and vice versa, in order, including unknown methods, an unknown
// sessionUpdate kind, _meta, and a permission request that follows its
// tool_call. Non-JSON noise on the backend's stdout never reaches the
// client but shows up on stderr and in the log file, next to the backend's
// stderr; the backend runs in processCwd.
func TestTurnIsLosslessAndOrdered(t *testing.T) {
	o, dir := agentOptions(t)
	logFile := filepath.Join(t.TempDir(), "logs", "proxy.log")
	o.LogFile = logFile
	c := startClient(t, context.Background(), o, dir)

	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}},"_meta":{"vendor.example/x":[1,2.0,"\u00e9"]}}}`)
	init, l := c.recvMsg()
	var initRes struct {
		Meta struct {
			ProcessCwd string `json:"processCwd"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(init.Result, &initRes); err != nil {
		t.Fatalf("initialize result %s: %v", l, err)
	}
	if got, want := realpath(t, initRes.Meta.ProcessCwd), realpath(t, dir); got != want {
		t.Errorf("backend process cwd = %s, want processCwd %s", got, want)
	}
	c.send(`{"id":"new-1","jsonrpc":"2.0","method":"session/new","params":{"mcpServers":[],"cwd":"/tmp/project","_meta":{"z":null}}}`)
	c.recv()
	c.send(`{"jsonrpc":"2.0","method":"_vendor/hello","params":{"_meta":{"a":1}}}`)
	c.send(`{"jsonrpc":"2.0","id":4,"method":"_vendor/unknown","params":{}}`)
	if m, l := c.recvMsg(); string(m.ID) != "4" || m.Error == nil || m.Error.Code != -32601 {
		t.Fatalf("unknown method did not reach the agent: %s", l)
	}
	c.send(prompt("3", "turn"))

	var got [][]byte
	var prev []byte
	sawPermission := false
	for {
		m, l := c.recvMsg()
		got = append(got, l)
		if m.Method == "session/request_permission" {
			sawPermission = true
			if string(m.ID) != "0" {
				t.Errorf("permission request id %s, want 0", m.ID)
			}
			if !bytes.Contains(prev, []byte(`"sessionUpdate":"tool_call"`)) {
				t.Errorf("permission request not preceded by its tool_call; previous line %s", prev)
			}
			c.send(`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow"}},"_meta":{"c":1}}`)
		}
		if string(m.ID) == "3" && m.Method == "" {
			if !bytes.Contains(m.Result, []byte(`"optionId":"allow"`)) {
				t.Errorf("prompt result does not carry the permission outcome: %s", l)
			}
			break
		}
		prev = l
	}
	if !sawPermission {
		t.Fatal("no permission request")
	}
	c.in.Close()
	if err := c.wait(); err != nil {
		t.Fatalf("Run after client EOF = %v, want nil", err)
	}

	// Everything the agent sent, the client got, byte for byte and in order.
	received := append([][]byte{}, got...)
	sent := transcript(t, filepath.Join(dir, "sent.jsonl"))
	// The first three agent lines (initialize, session/new, -32601) were
	// consumed above one by one; compare the turn's lines exactly.
	if len(sent) < 3 {
		t.Fatalf("agent sent %d lines", len(sent))
	}
	if !equalLines(sent[3:], received) {
		t.Errorf("client received a different stream than the agent sent:\nsent:\n%s\nreceived:\n%s", bytes.Join(sent[3:], nil), bytes.Join(received, nil))
	}
	if recv := transcript(t, filepath.Join(dir, "recv.jsonl")); !equalLines(recv, c.sent) {
		t.Errorf("agent received a different stream than the client sent:\nsent:\n%s\nreceived:\n%s", bytes.Join(c.sent, nil), bytes.Join(recv, nil))
	}
	for _, l := range received {
		if bytes.Contains(l, []byte("noise:")) {
			t.Errorf("noise reached the client: %s", l)
		}
	}
	stderr := c.stderr.String()
	if !strings.Contains(stderr, "noise: the backend printed this on stdout") || !strings.Contains(stderr, "warning") {
		t.Errorf("noise not reported on stderr:\n%s", stderr)
	}
	if !strings.Contains(stderr, "test agent: started") {
		t.Errorf("backend stderr not copied to stderr:\n%s", stderr)
	}
	lb, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"backend: test agent: started", "noise: the backend printed this on stdout", "started backend"} {
		if !bytes.Contains(lb, []byte(want)) {
			t.Errorf("log file lacks %q:\n%s", want, lb)
		}
	}
}

func equalLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func realpath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return r
}

// The cwd of session/new, load, resume, fork and list is rewritten
// only under sessionCwd "workspace", and then only the value bytes change:
// spacing, escapes elsewhere, key order and a nested "_meta.cwd" stay.
func TestSessionCwdPolicy(t *testing.T) {
	ws := filepath.Join(t.TempDir(), `ws "quoted" & ü`)
	const clientCwd = "/home/user/proj\u00e9ct"
	for _, policy := range []string{schema.CwdClient, schema.CwdWorkspace} {
		for _, method := range []string{"session/new", "session/load", "session/resume", "session/fork", "session/list"} {
			t.Run(policy+"/"+method, func(t *testing.T) {
				o, dir := agentOptions(t)
				o.SessionCwd, o.Workspace = policy, ws
				var mu sync.Mutex
				var events []SessionEvent
				o.OnSession = func(e SessionEvent) {
					mu.Lock()
					events = append(events, e)
					mu.Unlock()
				}
				c := startClient(t, context.Background(), o, dir)
				head := `{"jsonrpc":"2.0", "id" : 10 ,"method":"` + method + `","params":{ "sessionId":"s", "cwd" :`
				tail := ` ,"mcpServers":[],"_meta":{"cwd":"/not/this/one"}}}`
				c.send(head + ` "\/home\/user\/proj\u00e9ct"` + tail)
				m, l := c.recvMsg()
				var res struct {
					Meta struct {
						SessionCwd string `json:"sessionCwd"`
					} `json:"_meta"`
				}
				if err := json.Unmarshal(m.Result, &res); err != nil {
					t.Fatalf("response %s: %v", l, err)
				}
				wantCwd, wantLine := clientCwd, c.sent[0]
				if policy == schema.CwdWorkspace {
					wantCwd = ws
					wantLine = []byte(head + ` ` + string(rpcpeer.JSONString(ws)) + tail + "\n")
				}
				if res.Meta.SessionCwd != wantCwd {
					t.Errorf("backend saw cwd %q, want %q", res.Meta.SessionCwd, wantCwd)
				}
				c.in.Close()
				if err := c.wait(); err != nil {
					t.Fatal(err)
				}
				recv := transcript(t, filepath.Join(dir, "recv.jsonl"))
				if len(recv) != 1 || !bytes.Equal(recv[0], wantLine) {
					t.Errorf("backend received\n%s\nwant\n%s", bytes.Join(recv, nil), wantLine)
				}
				mu.Lock()
				defer mu.Unlock()
				want := SessionEvent{Method: method, ClientCwd: clientCwd, BackendCwd: wantCwd}
				if len(events) != 1 || events[0] != want {
					t.Errorf("OnSession events %+v, want [%+v]", events, want)
				}
			})
		}
	}
}

// session/list's cwd is an optional filter: left out, null, or with no
// params at all, the request passes untouched under either policy.
func TestSessionListWithoutCwd(t *testing.T) {
	o, dir := agentOptions(t)
	o.SessionCwd, o.Workspace = schema.CwdWorkspace, t.TempDir()
	c := startClient(t, context.Background(), o, dir)
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/list","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{"cwd":null,"cursor":"c"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session/list"}`,
	}
	for _, l := range lines {
		c.send(l)
		if m, got := c.recvMsg(); m.Error != nil {
			t.Errorf("%s answered %s", l, got)
		}
	}
	c.in.Close()
	if err := c.wait(); err != nil {
		t.Fatal(err)
	}
	recv := transcript(t, filepath.Join(dir, "recv.jsonl"))
	if len(recv) != len(lines) {
		t.Fatalf("backend received %d lines, want %d", len(recv), len(lines))
	}
	for i, l := range lines {
		if string(recv[i]) != l+"\n" {
			t.Errorf("backend received %q, want %q", recv[i], l)
		}
	}
}

// A relative (or missing, or non-string) cwd is answered by the proxy with
// -32602 under the client's own id and never reaches the backend; the
// session goes on.
func TestRelativeCwdIsRejected(t *testing.T) {
	bad := []string{
		`{"jsonrpc":"2.0","id":"r1","method":"session/new","params":{"cwd":"rel/dir","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":"","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":0,"method":"session/load","params":{"sessionId":"s","cwd":"./x","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":-7,"method":"session/resume","params":{"sessionId":"s","cwd":"../up"}}`,
		`{"jsonrpc":"2.0","id":"r2","method":"session/new","params":{"mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":"r3","method":"session/new","params":{"cwd":42}}`,
		`{"jsonrpc":"2.0","id":"r4","method":"session/new"}`,
		`{"jsonrpc":"2.0","id":"r5","method":"session/new","params":{"cwd":"/abs","cwd":"rel"}}`,
		`{"jsonrpc":"2.0","id":"f1","method":"session/fork","params":{"sessionId":"s","mcpServers":[]}}`,
		`{"jsonrpc":"2.0","id":"l1","method":"session/list","params":{"cwd":"rel"}}`,
		`{"jsonrpc":"2.0","id":"l2","method":"session/list","params":{"cwd":7}}`,
	}
	for _, policy := range []string{schema.CwdClient, schema.CwdWorkspace} {
		t.Run(policy, func(t *testing.T) {
			o, dir := agentOptions(t)
			o.SessionCwd, o.Workspace = policy, t.TempDir()
			c := startClient(t, context.Background(), o, dir)
			for _, line := range bad {
				c.send(line)
				var req struct {
					ID json.RawMessage `json:"id"`
				}
				_ = json.Unmarshal([]byte(line), &req)
				m, l := c.recvMsg()
				if !bytes.Equal(m.ID, req.ID) || m.Error == nil || m.Error.Code != -32602 {
					t.Errorf("for %s got %s, want error -32602 with id %s", line, l, req.ID)
				}
			}
			c.send(`{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"cwd":"/ok","mcpServers":[]}}`)
			if m, l := c.recvMsg(); string(m.ID) != "6" || m.Result == nil {
				t.Fatalf("valid session/new after rejections: %s", l)
			}
			c.in.Close()
			if err := c.wait(); err != nil {
				t.Fatal(err)
			}
			recv := transcript(t, filepath.Join(dir, "recv.jsonl"))
			if len(recv) != 1 || !bytes.Contains(recv[0], []byte(`"id":6`)) {
				t.Errorf("backend received rejected requests:\n%s", bytes.Join(recv, nil))
			}
		})
	}
}

// Request ids of every JSON type pass untouched, and the agent may use the
// same ids for its own requests while the client's are in flight.
func TestRequestIDs(t *testing.T) {
	o, dir := agentOptions(t)
	c := startClient(t, context.Background(), o, dir)
	ids := []string{`"abc"`, `7`, `0`, `-1`, `1.5`, `""`, `"\u0041\n"`, `12345678901234567890`, `1e3`, `"0"`}
	for _, id := range ids {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"_test/echo","params":{"k":` + id + `}}`)
		want := `{"jsonrpc":"2.0","id":` + id + `,"result":{"k":` + id + `}}` + "\n"
		if got := c.recv(); string(got) != want {
			t.Errorf("id %s: got %s want %s", id, got, want)
		}
	}
	for _, id := range []string{`0`, `"x"`, `1`} {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"_test/collide","params":{}}`)
		m, l := c.recvMsg()
		if m.Method != "_test/ping" || string(m.ID) != id {
			t.Fatalf("want the agent's request with colliding id %s, got %s", id, l)
		}
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{"ok":` + id + `}}`)
		want := `{"jsonrpc":"2.0","id":` + id + `,"result":{"pong":{"ok":` + id + `}}}` + "\n"
		if got := c.recv(); string(got) != want {
			t.Errorf("collide %s: got %s want %s", id, got, want)
		}
	}
	c.in.Close()
	if err := c.wait(); err != nil {
		t.Fatal(err)
	}
	if recv := transcript(t, filepath.Join(dir, "recv.jsonl")); !equalLines(recv, c.sent) {
		t.Errorf("agent received a different stream:\n%s", bytes.Join(recv, nil))
	}
}

// Long bursts in both directions cross many buffer boundaries and stay
// byte-identical and in order.
func TestBurstsKeepOrder(t *testing.T) {
	o, dir := agentOptions(t)
	c := startClient(t, context.Background(), o, dir)
	for i := 0; i < 3000; i++ {
		c.send(`{"jsonrpc":"2.0","method":"_vendor/note","params":{"seq":` + strconv.Itoa(i) + `,"pad":"` + strings.Repeat("p", i%700) + `"}}`)
	}
	const n = 20000
	c.send(`{"jsonrpc":"2.0","id":"burst","method":"_test/burst","params":{"n":` + strconv.Itoa(n) + `}}`)
	var got [][]byte
	for len(got) < n+1 {
		got = append(got, c.recv())
	}
	c.in.Close()
	if err := c.wait(); err != nil {
		t.Fatal(err)
	}
	if sent := transcript(t, filepath.Join(dir, "sent.jsonl")); !equalLines(sent, got) {
		t.Errorf("burst differs: sent %d lines, received %d", len(sent), len(got))
	}
	if recv := transcript(t, filepath.Join(dir, "recv.jsonl")); !equalLines(recv, c.sent) {
		t.Errorf("client burst differs: sent %d lines, agent received %d", len(c.sent), len(recv))
	}
}

// Messages of 32 MiB pass both ways unchanged.
func TestLargeMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 32 MiB lines")
	}
	o, dir := agentOptions(t)
	c := startClient(t, context.Background(), o, dir)
	unit := `abc\"\\\u00e9 `
	blob := strings.Repeat(unit, (32<<20)/len(unit)+1)
	req := `{"jsonrpc":"2.0","id":"big","method":"_test/echo","params":{"blob":"` + blob + `"}}`
	c.send(req)
	got := c.recv()
	want := `{"jsonrpc":"2.0","id":"big","result":{"blob":"` + blob + `"}}` + "\n"
	if len(got) < 32<<20 || string(got) != want {
		t.Fatalf("32 MiB echo: got %d bytes, want %d identical bytes", len(got), len(want))
	}
	c.in.Close()
	if err := c.wait(); err != nil {
		t.Fatal(err)
	}
	recv := transcript(t, filepath.Join(dir, "recv.jsonl"))
	if len(recv) != 1 || string(recv[0]) != req+"\n" {
		t.Errorf("agent did not receive the 32 MiB request intact")
	}
}

// A message above MaxMessageSize ends the session with ErrProtocol; pending
// requests are answered.
func TestOversizedMessage(t *testing.T) {
	o, dir := agentOptions(t)
	o.MaxMessageSize = 1 << 20
	c := startClient(t, context.Background(), o, dir)
	c.send(`{"jsonrpc":"2.0","id":"h","method":"_test/hang","params":{}}`)
	eventually(t, "agent to receive the request", func() bool {
		return len(transcript(t, filepath.Join(dir, "recv.jsonl"))) == 1
	})
	go c.in.Write([]byte(`{"jsonrpc":"2.0","id":"x","method":"_test/echo","params":"` + strings.Repeat("a", 2<<20) + "\"}\n"))
	m, l := c.recvMsg()
	if string(m.ID) != `"h"` || m.Error == nil {
		t.Errorf("pending request: got %s", l)
	}
	asError(t, c.wait(), ErrProtocol)
}

// A backend command that does not exist: the client's initialize gets an
// error naming the command and the install hint, and Run fails at once.
func TestMissingBackend(t *testing.T) {
	for name, cmd := range map[string]string{
		"path lookup":   "actctl-test-no-such-backend",
		"absolute path": "/nonexistent/actctl-test-no-such-backend",
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			c := startClient(t, context.Background(), Options{Command: cmd, InstallHint: "npm install -g no-such-backend"}, "")
			c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
			m, l := c.recvMsg()
			if string(m.ID) != "1" || m.Error == nil {
				t.Fatalf("initialize: got %s, want an error", l)
			}
			for _, want := range []string{cmd, "npm install -g no-such-backend"} {
				if !strings.Contains(m.Error.Message, want) {
					t.Errorf("error message %q does not name %q", m.Error.Message, want)
				}
			}
			pe := asError(t, c.wait(), ErrStart)
			if pe.Command != cmd || pe.ExitCode != -1 {
				t.Errorf("error %+v", pe)
			}
			t.Logf("initialize answered and Run returned after %v", time.Since(start))
		})
	}
	t.Run("missing processCwd", func(t *testing.T) {
		o, _ := agentOptions(t)
		o.ProcessCwd = filepath.Join(t.TempDir(), "gone")
		o.InstallHint = "hint"
		c := startClient(t, context.Background(), o, "")
		c.send(`{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1}}`)
		m, l := c.recvMsg()
		if m.Error == nil || !strings.Contains(m.Error.Message, o.ProcessCwd) || strings.Contains(m.Error.Message, "hint") {
			t.Errorf("initialize: %s", l)
		}
		asError(t, c.wait(), ErrStart)
	})
	t.Run("no initialize", func(t *testing.T) {
		// A client that never asks: the wait for it is bounded.
		c := startClient(t, context.Background(), Options{Command: "actctl-test-no-such-backend", InitWait: time.Nanosecond}, "")
		asError(t, c.wait(), ErrStart)
	})
	t.Run("late initialize", func(t *testing.T) {
		// A client that asks only once the proxy has said it failed (and
		// waits) still gets the reason; the error is logged once.
		c := startClient(t, context.Background(), Options{Command: "actctl-test-no-such-backend", InitWait: time.Hour}, "")
		if !c.stderr.WaitFor("waiting up to 1h0m0s for the client's initialize") {
			t.Fatalf("no waiting line; stderr:\n%s", c.stderr)
		}
		c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
		if m, l := c.recvMsg(); m.Error == nil || !strings.Contains(m.Error.Message, "actctl-test-no-such-backend") {
			t.Fatalf("initialize: %s", l)
		}
		asError(t, c.wait(), ErrStart)
		if n := strings.Count(c.stderr.String(), "could not be started"); n != 1 {
			t.Errorf("start error logged %d times:\n%s", n, c.stderr)
		}
	})
}

// A backend that exits during start, and a client whose initialize comes
// only after the proxy said so: it still gets the reason.
func TestBackendExitsBeforeLateInitialize(t *testing.T) {
	o, dir := agentOptions(t, "die-at-start")
	o.InitWait = time.Hour
	c := startClient(t, context.Background(), o, dir)
	if !c.stderr.WaitFor("waiting up to 1h0m0s") {
		t.Fatalf("no waiting line; stderr:\n%s", c.stderr)
	}
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	if m, l := c.recvMsg(); m.Error == nil || !strings.Contains(m.Error.Message, "exited during start") {
		t.Fatalf("initialize: %s", l)
	}
	asError(t, c.wait(), ErrStart)
	if n := strings.Count(c.stderr.String(), "exited during start"); n != 1 {
		t.Errorf("start error logged %d times:\n%s", n, c.stderr)
	}
}

// A backend that exits before answering initialize: same answer, with the
// backend's last stderr words and exit code.
func TestBackendExitsDuringStart(t *testing.T) {
	o, dir := agentOptions(t, "die-at-start")
	o.InstallHint = "pip install fake-agent"
	c := startClient(t, context.Background(), o, dir)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	m, l := c.recvMsg()
	if m.Error == nil || !strings.Contains(m.Error.Message, o.Command) || !strings.Contains(m.Error.Message, "pip install fake-agent") {
		t.Fatalf("initialize: %s", l)
	}
	if !bytes.Contains(m.Error.Data, []byte("missing API key")) {
		t.Errorf("error data lacks the backend's stderr: %s", m.Error.Data)
	}
	pe := asError(t, c.wait(), ErrStart)
	if pe.ExitCode != 7 {
		t.Errorf("exit code %d, want 7", pe.ExitCode)
	}
}

// A crash mid-turn: what the backend sent before dying is relayed, every
// request still in flight (and only those) gets an error response, the
// backend's children die, and Run reports the crash.
func TestCrashMidTurn(t *testing.T) {
	o, dir := agentOptions(t)
	c := startClient(t, context.Background(), o, dir)
	c.initSession("/tmp")
	c.send(prompt(`"f"`, "fork"))
	c.recv()
	pids := readPids(t, filepath.Join(dir, "pids"))
	defer killAll(pids)
	c.send(`{"jsonrpc":"2.0","id":0,"method":"_test/hang","params":{}}`)
	c.send(`{"jsonrpc":"2.0","id":"0","method":"_test/hang","params":{}}`)
	c.send(`{"jsonrpc":"2.0","id":1.0,"method":"_test/hang","params":{}}`)
	c.send(prompt("99", "crash"))
	rest := c.rest()
	if len(rest) != 5 || !bytes.Contains(rest[0], []byte("about to crash")) {
		t.Fatalf("after crash got:\n%s", bytes.Join(rest, nil))
	}
	for i, id := range []string{`0`, `"0"`, `1.0`, `99`} {
		var m rpcMsg
		if err := json.Unmarshal(rest[i+1], &m); err != nil || string(m.ID) != id || m.Error == nil ||
			!strings.Contains(m.Error.Message, "exited unexpectedly") || !strings.Contains(m.Error.Message, o.Command) {
			t.Errorf("pending request %s: got %s", id, rest[i+1])
		}
	}
	pe := asError(t, c.wait(), ErrCrash)
	if pe.ExitCode != 3 {
		t.Errorf("exit code %d, want 3", pe.ExitCode)
	}
	requireGone(t, pids...)
}

// Client EOF: the backend's stdin is closed first; a backend that exits
// gets to do so, one that does not is killed after the grace period; Run
// returns nil either way and no child survives.
func TestClientEOF(t *testing.T) {
	for _, tc := range []struct {
		name  string
		modes []string
		grace time.Duration
	}{
		{"backend exits", nil, 0},
		{"backend ignores EOF", []string{"ignore-eof"}, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, dir := agentOptions(t, tc.modes...)
			o.Grace = tc.grace
			var backend int
			o.OnStart = func(pid int) { backend = pid }
			c := startClient(t, context.Background(), o, dir)
			c.initSession("/tmp")
			c.send(prompt("3", "fork"))
			c.recv()
			pids := readPids(t, filepath.Join(dir, "pids"))
			defer killAll(pids)
			c.in.Close()
			if err := c.wait(); err != nil {
				t.Fatalf("Run = %v, want nil", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "eof")); err != nil {
				t.Errorf("backend never saw stdin EOF: %v", err)
			}
			requireGone(t, append(pids, backend)...)
		})
	}
}

// A backend that exits as soon as its stdin closes races the proxy's own
// notice of the client's EOF; the end must still be read as the client
// leaving (nil), never as a crash. The hook widens the window after the
// backend's stdin closes so that the backend has exited before the client
// loop returns.
func TestClientEOFBackendExitsAtOnce(t *testing.T) {
	hook := func() { time.Sleep(300 * time.Millisecond) }
	testHookStdinClosed.Store(&hook)
	defer testHookStdinClosed.Store(nil)
	for i := 0; i < 5; i++ {
		o, dir := agentOptions(t)
		o.Grace = 5 * time.Second
		c := startClient(t, context.Background(), o, dir)
		c.initSession("/tmp")
		c.in.Close()
		if err := c.wait(); err != nil {
			t.Fatalf("run %d: Run = %v, want nil\n%s", i, err, c.stderr)
		}
	}
}

// Cancelling Run's context (what the CLI does on SIGINT/SIGTERM/SIGHUP)
// kills the group at once, answers pending requests, and is an error.
func TestCancelKillsGroup(t *testing.T) {
	o, dir := agentOptions(t, "ignore-eof")
	o.Grace = time.Hour // must not be waited on cancellation
	var backend int
	o.OnStart = func(pid int) { backend = pid }
	ctx, cancel := context.WithCancelCause(context.Background())
	c := startClient(t, ctx, o, dir)
	c.initSession("/tmp")
	c.send(prompt("3", "fork"))
	c.recv()
	pids := readPids(t, filepath.Join(dir, "pids"))
	defer killAll(pids)
	c.send(`{"jsonrpc":"2.0","id":"pending","method":"_test/hang","params":{}}`)
	eventually(t, "agent to receive the request", func() bool {
		return len(transcript(t, filepath.Join(dir, "recv.jsonl"))) == 4
	})
	cancel(fmt.Errorf("signal: terminated"))
	m, l := c.recvMsg()
	if string(m.ID) != `"pending"` || m.Error == nil || !strings.Contains(m.Error.Message, "interrupted") {
		t.Errorf("pending request: %s", l)
	}
	asError(t, c.wait(), ErrInterrupted)
	requireGone(t, append(pids, backend)...)
}

// TestSessionCwdWorkspaceClient: under "workspace+client" (an employee
// reached from an editor) a backend that takes additionalDirectories gets
// its workspace as the session cwd and the client's project among them,
// on every method carrying a cwd; one that does not keeps the client's
// cwd, byte for byte, and the log says so (issue #32 item 9).
func TestSessionCwdWorkspaceClient(t *testing.T) {
	ws := filepath.Join(t.TempDir(), "instances", "dev")
	const clientCwd = "/home/user/project"
	for _, takes := range []bool{true, false} {
		for _, method := range []string{"session/new", "session/load", "session/resume"} {
			t.Run(fmt.Sprintf("%s/takes=%v", method, takes), func(t *testing.T) {
				var o Options
				var dir string
				if takes {
					o, dir = agentOptions(t, "extra-dirs")
				} else {
					o, dir = agentOptions(t)
				}
				o.SessionCwd, o.Workspace = schema.CwdWorkspaceClient, ws
				c := startClient(t, context.Background(), o, dir)
				c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
				c.recvMsg()
				line := `{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{"sessionId":"s","cwd":"` + clientCwd + `","mcpServers":[]}}`
				c.send(line)
				c.recvMsg()
				c.in.Close()
				if err := c.wait(); err != nil {
					t.Fatal(err)
				}
				recv := transcript(t, filepath.Join(dir, "recv.jsonl"))
				want := line + "\n"
				if takes {
					want = `{"jsonrpc":"2.0","id":2,"method":"` + method + `","params":{"additionalDirectories":["` + clientCwd + `"],"sessionId":"s","cwd":` + string(rpcpeer.JSONString(ws)) + `,"mcpServers":[]}}` + "\n"
				}
				if len(recv) != 2 || string(recv[1]) != want {
					t.Errorf("backend received\n%s\nwant\n%s", bytes.Join(recv, nil), want)
				}
				if note := "the backend does not take additionalDirectories"; strings.Contains(c.stderr.String(), note) == takes {
					t.Errorf("stderr %q: note %q present: %v, want %v", c.stderr.String(), note, !takes, !takes)
				}
			})
		}
	}
}
