package rpcpeer

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/lineframe"
)

// TestTraceSummary: a traced line names the message's kind, method, id,
// session, update and tool kinds and size, never its text; what a peer
// wrote in them stays on one line.
func TestTraceSummary(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"tok-1"}]}}`,
			"request session/prompt id=3 session=s1 120 B"},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c","title":"tok-1","kind":"edit"}}}`,
			"notification session/update session=s1 update=tool_call tool=edit 157 B"},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":1,"message":"tok-1"}}`, `response id="a" error 63 B`},
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s\n1"}}`, "notification session/update session=s?1 73 B"},
	} {
		env := lineframe.Parse([]byte(c.line))
		if got := Summary([]byte(c.line), &env); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.line, got, c.want)
		}
	}
	var b bytes.Buffer
	tr := &Trace{W: &b, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.UTC) }}
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	env := lineframe.Parse(line)
	tr.Line("agent"+ToClient, line, &env)
	(*Trace)(nil).Line("agent"+ToClient, line, &env)
	if got := b.String(); got != "actctl acp: 03:04:05.006 agent->client response id=1 36 B\n" || strings.Contains(got, "tok-") {
		t.Errorf("trace: %q", got)
	}
}

// TestTraceWriter: the lines written through a trace's Writer reach the
// writer as they are and are traced once each is complete, however the
// writes cut them.
func TestTraceWriter(t *testing.T) {
	var out, trace bytes.Buffer
	tr := &Trace{W: &trace, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
	w := tr.Writer("client"+ToAgent, &out)
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n" + `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}}` + "\n"
	for _, part := range []string{in[:10], in[10:70], in[70:]} {
		if _, err := w.Write([]byte(part)); err != nil {
			t.Fatal(err)
		}
	}
	want := "actctl acp: 03:04:05.000 client->agent request initialize id=1 58 B\n" +
		"actctl acp: 03:04:05.000 client->agent notification session/cancel session=s 70 B\n"
	if out.String() != in || trace.String() != want {
		t.Errorf("out %q\ntrace %q\nwant  %q", out.String(), trace.String(), want)
	}
	if (*Trace)(nil).Writer("x", &out) != &out {
		t.Error("a nil trace wraps its writer")
	}
}
