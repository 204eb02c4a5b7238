package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/testutil"
)

// deadline bounds every wait in the tests. It is not a performance
// threshold: it only turns a hang into a failure.
const deadline = 30 * time.Second

// client is the editor's side of an in-process proxy session.
type client struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan []byte
	stderr *testutil.Buffer
	done   chan error // Run's result
	dir    string     // the test agent's transcript directory
	sent   [][]byte   // lines written by the client, in order
}

// agentOptions returns Options that run this test binary as the test agent.
func agentOptions(t *testing.T, modes ...string) (Options, string) {
	t.Helper()
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return Options{
		Command:    exe,
		Env:        append(os.Environ(), envRole+"=agent", envAgentDir+"="+dir, envAgentMode+"="+strings.Join(modes, ",")),
		ProcessCwd: dir,
	}, dir
}

// startClient runs Run in-process with o and connects a client to it.
func startClient(t *testing.T, ctx context.Context, o Options, dir string) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, in: inW, lines: make(chan []byte, 1<<16), stderr: &testutil.Buffer{}, done: make(chan error, 1), dir: dir}
	o.Stdin, o.Stdout = inR, outW
	if o.Stderr == nil {
		o.Stderr = c.stderr
	}
	go func() {
		err := Run(ctx, o)
		outW.Close()
		c.done <- err
	}()
	go func() {
		br := bufio.NewReader(outR)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				c.lines <- line
			}
			if err != nil {
				close(c.lines)
				return
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-c.done:
		case <-time.After(deadline):
			t.Errorf("Run did not return")
		}
	})
	return c
}

func (c *client) send(line string) {
	c.t.Helper()
	b := []byte(line + "\n")
	c.sent = append(c.sent, b)
	if _, err := c.in.Write(b); err != nil {
		c.t.Fatalf("write to proxy: %v", err)
	}
}

// recv returns the next line from the proxy.
func (c *client) recv() []byte {
	c.t.Helper()
	select {
	case l, ok := <-c.lines:
		if !ok {
			c.t.Fatalf("proxy closed stdout; stderr:\n%s", c.stderr)
		}
		return l
	case <-time.After(deadline):
		c.t.Fatalf("no message from proxy; stderr:\n%s", c.stderr)
	}
	return nil
}

// recvMsg returns the next message decoded loosely.
func (c *client) recvMsg() (rpcMsg, []byte) {
	c.t.Helper()
	l := c.recv()
	var m rpcMsg
	if err := json.Unmarshal(l, &m); err != nil {
		c.t.Fatalf("proxy wrote a non-JSON line %q: %v", l, err)
	}
	return m, l
}

// wait returns Run's result.
func (c *client) wait() error {
	c.t.Helper()
	select {
	case err := <-c.done:
		c.done <- err
		return err
	case <-time.After(deadline):
		c.t.Fatalf("Run did not return; stderr:\n%s", c.stderr)
	}
	return nil
}

// rest returns every line the proxy writes until it closes stdout.
func (c *client) rest() [][]byte {
	c.t.Helper()
	var out [][]byte
	timeout := time.After(deadline)
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				return out
			}
			out = append(out, l)
		case <-timeout:
			c.t.Fatalf("proxy did not close stdout")
		}
	}
}

type rpcMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// transcript reads a file of lines the test agent wrote.
func transcript(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readPids waits for the agent's pid file and parses it.
func readPids(t *testing.T, path string) []int {
	t.Helper()
	var pids []int
	eventually(t, "pid file "+filepath.Base(path), func() bool {
		b, err := os.ReadFile(path)
		if err != nil || len(b) == 0 {
			return false
		}
		pids = pids[:0]
		for _, f := range strings.Fields(string(b)) {
			n, err := strconv.Atoi(f)
			if err != nil {
				return false
			}
			pids = append(pids, n)
		}
		return true
	})
	return pids
}

// initSession performs initialize and session/new and returns the backend's
// pid-independent process cwd as reported by the test agent.
func (c *client) initSession(cwd string) {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if m, l := c.recvMsg(); string(m.ID) != "1" || m.Result == nil {
		c.t.Fatalf("initialize: got %s", l)
	}
	c.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + jsonStr(cwd) + `,"mcpServers":[]}}`)
	if m, l := c.recvMsg(); string(m.ID) != "2" || m.Result == nil {
		c.t.Fatalf("session/new: got %s", l)
	}
}

func prompt(id, text string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"session/prompt","params":{"sessionId":"sess-1","prompt":[{"type":"text","text":` + jsonStr(text) + `}]}}`
}

func asError(t *testing.T, err error, kind ErrorKind) *Error {
	t.Helper()
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("Run returned %v (%T), want *proxy.Error", err, err)
	}
	if pe.Kind != kind {
		t.Fatalf("Run returned kind %d (%v), want %d", pe.Kind, pe, kind)
	}
	return pe
}
