package acpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/testutil"
	"github.com/actctl/actctl/launch"
)

// wirePeer plays the agent at the other end of an in-process stream: the
// test reads what the client wrote and writes what the agent says, line
// by line.
type wirePeer struct {
	t     testing.TB
	conn  net.Conn
	lines chan string
}

// wireMsg is a line the client wrote, decoded.
type wireMsg struct {
	ID     json.RawMessage   `json:"id"`
	Method string            `json:"method"`
	Params json.RawMessage   `json:"params"`
	Result json.RawMessage   `json:"result"`
	Error  *acp.RequestError `json:"error"`
}

func newWirePeer(t testing.TB) (net.Conn, *wirePeer) {
	client, agent := net.Pipe()
	p := &wirePeer{t: t, conn: agent, lines: make(chan string, 64)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(agent)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() { _ = agent.Close() })
	return client, p
}

// read is the next line the client wrote.
func (p *wirePeer) read() wireMsg {
	p.t.Helper()
	line, ok := testutil.Within(p.lines)
	if !ok || line == "" {
		p.t.Fatal("the client wrote nothing more")
	}
	var m wireMsg
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		p.t.Fatalf("the client wrote %q: %v", line, err)
	}
	return m
}

// write writes one line to the client (it waits until the client reads).
func (p *wirePeer) write(line string) {
	if _, err := fmt.Fprintln(p.conn, line); err != nil {
		p.t.Errorf("write %s: %v", line, err)
	}
}

// answer answers the request of raw id with result.
func (p *wirePeer) answer(id json.RawMessage, result string) {
	p.write(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
}

// connectPeer is a Client connected (Connect) to a wirePeer, which has
// answered initialize.
func connectPeer(t testing.TB, o Options) (*Client, *wirePeer) {
	t.Helper()
	cc, p := newWirePeer(t)
	o.Launch = launch.Launch{Command: "peer", Workspace: t.TempDir()}
	if o.ClientCwd == "" {
		o.ClientCwd = o.Launch.Workspace
	}
	type connected struct {
		c   *Client
		err error
	}
	ch := make(chan connected, 1)
	go func() {
		c, err := Connect(context.Background(), cc, o)
		ch <- connected{c, err}
	}()
	m := p.read()
	if m.Method != acp.AgentMethodInitialize {
		t.Fatalf("first message %+v, want initialize", m)
	}
	p.answer(m.ID, `{"protocolVersion":1}`)
	r, _ := testutil.Within(ch)
	if r.err != nil {
		t.Fatal(r.err)
	}
	t.Cleanup(r.c.Close)
	return r.c, p
}

// listed is the outcome of a session/list request.
type listed struct {
	r   acp.ListSessionsResponse
	err error
}

// listSessions sends session/list and returns where its outcome arrives.
func listSessions(ctx context.Context, c *Client) <-chan listed {
	ch := make(chan listed, 1)
	go func() {
		r, err := call[acp.ListSessionsResponse](ctx, c.conn, acp.AgentMethodSessionList, acp.ListSessionsRequest{})
		ch <- listed{r, err}
	}()
	return ch
}

// TestConnAnswersByID: the answer to the client's request is matched by
// its id however the agent spells it (a number re-encoded as 1.0 or
// 1e0); an answer under an id of no request in flight (the same number
// as a string) answers nothing.
func TestConnAnswersByID(t *testing.T) {
	for _, spell := range []func(id string) string{
		func(id string) string { return id },
		func(id string) string { return id + ".0" },
		func(id string) string { return id + "e0" },
	} {
		c, p := connectPeer(t, Options{})
		out := listSessions(t.Context(), c)
		m := p.read()
		p.answer(json.RawMessage(`"`+string(m.ID)+`"`), `{"sessions":[{"sessionId":"wrong","cwd":"/"}]}`)
		p.answer(json.RawMessage(spell(string(m.ID))), `{"sessions":[{"sessionId":"right","cwd":"/"}]}`)
		got, _ := testutil.Within(out)
		if got.err != nil || len(got.r.Sessions) != 1 || got.r.Sessions[0].SessionId != "right" {
			t.Errorf("answer to id %s under %s: %+v", m.ID, spell(string(m.ID)), got)
		}
	}
}

// TestConnServesAgentRequests: the agent's requests are answered under
// their own id, byte for byte, with the SDK's error codes for what the
// client does not serve or cannot decode.
func TestConnServesAgentRequests(t *testing.T) {
	for _, tc := range []struct {
		name, line, id string
		code           int
	}{
		{"unknown method", `{"jsonrpc":"2.0","id":"a\u003cb","method":"foo/bar","params":{}}`, `"a\u003cb"`, -32601},
		{"unstable method not served", `{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{}}`, `2`, -32601},
		{"extension of no session", `{"jsonrpc":"2.0","id":3,"method":"_x/y","params":{}}`, `3`, -32601},
		{"invalid params", `{"jsonrpc":"2.0","id":4,"method":"fs/read_text_file","params":{"sessionId":3}}`, `4`, -32602},
		{"no params", `{"jsonrpc":"2.0","id":5,"method":"session/request_permission"}`, `5`, -32602},
		{"invalid params by Validate", `{"jsonrpc":"2.0","id":6,"method":"fs/read_text_file","params":{"sessionId":"s"}}`, `6`, -32602},
		{"unknown session", `{"jsonrpc":"2.0","id":7.0,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/x"}}`, `7.0`, -32602},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, p := connectPeer(t, Options{})
			p.write(tc.line)
			m := p.read()
			if string(m.ID) != tc.id || m.Error == nil || m.Error.Code != tc.code || m.Method != "" {
				t.Errorf("answer %+v (error %v), want id %s, code %d", m, m.Error, tc.id, tc.code)
			}
		})
	}
}

// TestConnCancelledRequest: a request whose context ends returns at
// once with the SDK's "request cancelled" error, and the agent is told
// ($/cancel_request naming it, as the SDK does); its late answer is
// dropped and the connection goes on.
func TestConnCancelledRequest(t *testing.T) {
	c, p := connectPeer(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	out := listSessions(ctx, c)
	m := p.read()
	cancel()
	got, _ := testutil.Within(out)
	var re *acp.RequestError
	if !errors.As(got.err, &re) || re.Code != -32800 {
		t.Fatalf("cancelled request: %v", got.err)
	}
	n := p.read()
	var params struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if err := json.Unmarshal(n.Params, &params); err != nil || n.Method != "$/cancel_request" || n.ID != nil || string(params.RequestID) != string(m.ID) {
		t.Fatalf("after the cancel the client wrote %+v (%s), want $/cancel_request of %s", n, n.Params, m.ID)
	}
	p.answer(m.ID, `{"sessions":[{"sessionId":"late","cwd":"/"}]}`)
	out = listSessions(t.Context(), c)
	m = p.read()
	p.answer(m.ID, `{"sessions":[]}`)
	if got, _ = testutil.Within(out); got.err != nil || len(got.r.Sessions) != 0 {
		t.Fatalf("the next request: %+v", got)
	}
}

// TestConnAgentCancelsRequest: the agent's $/cancel_request ends the
// context its request is served with: a permission request put to a
// person is answered "cancelled".
func TestConnAgentCancelsRequest(t *testing.T) {
	asked := make(chan struct{})
	ask := func(ctx context.Context, _ ToolCall, _ []acp.PermissionOption) (Decision, error) {
		close(asked)
		<-ctx.Done()
		return Decision{}, ctx.Err()
	}
	c, p := openPeer(t, Options{Ask: ask})
	_ = c
	p.write(permissionRequest(`"perm-1"`))
	testutil.Within(asked)
	p.write(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"perm-1"}}`)
	m := p.read()
	if string(m.ID) != `"perm-1"` || !strings.Contains(string(m.Result), `"cancelled"`) {
		t.Fatalf("answer %+v (%s), want perm-1 cancelled", m, m.Result)
	}
}

// openPeer is connectPeer with the primary session open ("s1").
func openPeer(t testing.TB, o Options) (*Client, *wirePeer) {
	t.Helper()
	c, p := connectPeer(t, o)
	errc := make(chan error, 1)
	go func() { errc <- c.Open(context.Background(), c.opts.ClientCwd, "") }()
	m := p.read()
	if m.Method != acp.AgentMethodSessionNew {
		t.Fatalf("%+v, want session/new", m)
	}
	p.answer(m.ID, `{"sessionId":"s1"}`)
	if err, _ := testutil.Within(errc); err != nil {
		t.Fatal(err)
	}
	return c, p
}

func permissionRequest(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"edit"},"options":[{"optionId":"ok","name":"Allow","kind":"allow_once"}]}}`
}

// gateObserver records the text of the updates it is shown, in order,
// and holds the first until gate is closed.
type gateObserver struct {
	nopObserver
	seen chan struct{} // closed when the first is shown
	gate chan struct{}
	mu   sync.Mutex
	text []string
}

func (o *gateObserver) Event(e Event) {
	if e.Kind != EventText {
		return
	}
	o.mu.Lock()
	first := len(o.text) == 0
	o.text = append(o.text, e.Text)
	o.mu.Unlock()
	if first {
		close(o.seen)
		<-o.gate
	}
}

func (o *gateObserver) got() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.text, ",")
}

func update(text string) string {
	return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}`
}

// TestConnOrder: the session's updates are handled in order, and an
// answer read after them is given once they are (a slow observer holds
// it); a request of the agent's that waits for a person does not hold
// the answers read after it.
func TestConnOrder(t *testing.T) {
	asked := make(chan struct{})
	release := make(chan struct{})
	ask := func(ctx context.Context, _ ToolCall, o []acp.PermissionOption) (Decision, error) {
		close(asked)
		<-release
		return Decision{OptionID: string(o[0].OptionId)}, nil
	}
	obs := &gateObserver{seen: make(chan struct{}), gate: make(chan struct{})}
	c, p := openPeer(t, Options{Ask: ask, Observer: obs})
	p.write(permissionRequest(`9`))
	testutil.Within(asked)
	out := listSessions(t.Context(), c)
	m := p.read()
	p.answer(m.ID, `{"sessions":[]}`)
	if got, _ := testutil.Within(out); got.err != nil {
		t.Fatalf("answer read while a request waits: %v", got.err)
	}
	close(release)
	if a := p.read(); string(a.ID) != "9" || !strings.Contains(string(a.Result), `"ok"`) {
		t.Fatalf("permission answer %+v (%s)", a, a.Result)
	}

	out = listSessions(t.Context(), c)
	m = p.read()
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		for _, u := range []string{"one", "two", "three"} {
			p.write(update(u))
		}
		p.answer(m.ID, `{"sessions":[]}`)
	}()
	testutil.Within(obs.seen)
	close(obs.gate)
	got, _ := testutil.Within(out)
	if got.err != nil || obs.got() != "one,two,three" {
		t.Fatalf("answer %+v given after updates %q, want all three in order", got, obs.got())
	}
	testutil.Within(wrote)
}

// TestConnStreamEnd: the requests in flight when the agent's stream
// ends fail, as the backend's end ("exited during"), or as the protocol
// break when it sent a line over MaxMessage (the client then ends the
// stream).
func TestConnStreamEnd(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(p *wirePeer)
		want string
	}{
		{"closed", func(p *wirePeer) { _ = p.conn.Close() }, `backend "peer" exited during session/list`},
		{"oversized line", func(p *wirePeer) {
			// The write fails once the client has ended the stream.
			go fmt.Fprintln(p.conn, `{"jsonrpc":"2.0","method":"_x","params":"`+strings.Repeat("x", MaxMessage)+`"}`)
		}, `backend "peer" broke the protocol during session/list: it sent a message of more than 10 MiB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, p := connectPeer(t, Options{})
			errc := make(chan error, 1)
			go func() {
				_, err := c.ListSessions(context.Background())
				errc <- err
			}()
			p.read()
			tc.end(p)
			err, _ := testutil.Within(errc)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("request in flight at the end: %v, want %q", err, tc.want)
			}
			testutil.Within(c.Done())
		})
	}
}

// TestConnectionMemory: opening a connection (initialize, session/new)
// allocates far less than the ACP SDK's connection did: its reader's 1
// MiB line buffer, per connection, was most of an idle agent's memory
// in `up` (docs/benchmarks.md, "up at 200 and 1,000 agents").
func TestConnectionMemory(t *testing.T) {
	const n, limit = 20, 256 << 10
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		c, _ := openPeer(t, Options{})
		c.Close()
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / n
	if per > limit {
		t.Fatalf("a connection allocated %d KiB (want < %d KiB)", per>>10, limit>>10)
	}
	t.Logf("%d KiB allocated per connection", per>>10)
}
