package acpclient

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/launch"

	"github.com/actctl/actctl/internal/lineframe"
)

// TestWireLog: the answer to a session's prompt in flight is known as
// that session's (its observer and filter get it), once; answers to
// other requests, and a prompt's second answer, are not.
func TestWireLog(t *testing.T) {
	var w wireLog
	w.sent([]byte(`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}` + "\n"))
	w.sent([]byte(`{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"s2","prompt":[]}}` + "\n"))
	for _, c := range []struct{ line, want string }{
		{`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{}}}`, ""},
		{`{"jsonrpc":"2.0","id":9,"result":{"stopReason":"end_turn"}}`, ""}, // not a prompt's
		{`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"refusal"}}`, "s1"},
		{`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"refusal"}}`, ""}, // answered already
		{`{"jsonrpc":"2.0","id":8,"error":{"code":-32603,"message":"x"}}`, "s2"},
	} {
		if got := readLine(&w, []byte(c.line)); got != c.want {
			t.Errorf("%s: session %q, want %q", c.line, got, c.want)
		}
	}
}

// TestAnswerThenExit: an agent that answers a turn and exits at once
// ended the turn: Prompt returns its stop reason and the text streamed
// before it, every time (the SDK alone picked the disconnect at random:
// TestExitErr failed so in CI-like runs).
func TestAnswerThenExit(t *testing.T) {
	for i := range 20 {
		c, rec := startTestAgent(t, Options{})
		res, err := c.Prompt(t.Context(), "exit 3")
		if err != nil || res.StopReason != "end_turn" || !strings.Contains(rec.String(), "exiting\n") {
			t.Fatalf("run %d: result %+v, err %v, text %q", i, res, err, rec.String())
		}
		<-c.Done()
	}
}

// gatedRecorder holds every text update until gate is closed.
type gatedRecorder struct {
	*textRecorder
	gate chan struct{}
}

func (r gatedRecorder) Event(e Event) {
	if e.Kind == EventText {
		<-r.gate
	}
	r.textRecorder.Event(e)
}

// TestAnswerThenExitSlowUpdate: the text the agent streamed before its
// answer is still being handled when the agent has exited and the
// connection has ended (the handler waits for the exit): the turn still
// ends with its stop reason, after that text. The SDK alone reports
// "peer disconnected" here.
func TestAnswerThenExitSlowUpdate(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	rec := gatedRecorder{newTextRecorder(), make(chan struct{})}
	c, err := Start(context.Background(), Options{
		Launch:    launch.Launch{Command: self, Env: map[string]string{acptestagent.Var: "1"}, Cwd: ws, Workspace: ws},
		ClientCwd: t.TempDir(), Observer: rec,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		<-c.Done() // the backend exited: its output has ended
		close(rec.gate)
	}()
	res, err := c.Prompt(context.Background(), "exit 3")
	if err != nil || res.StopReason != "end_turn" || rec.String() != "exiting\n" {
		t.Fatalf("result %+v, err %v, text %q", res, err, rec.String())
	}
}

// readLine is a line read from the agent, as the reader hands it to the
// wire log: with its envelope.
func readLine(w *wireLog, line []byte) string {
	env := lineframe.Parse(line)
	return w.read(&env)
}
