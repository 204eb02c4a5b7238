package proxy

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/rpcpeer"
)

// TestPluginHooks: the session plugins' interception point. A client's
// session/prompt reaches the backend as the Prompt hook returns it (or is
// answered with the hook's error and never forwarded), the backend's
// session/update reaches the client as the Update hook returns it (none:
// dropped), and what TurnEnd returns precedes the prompt's answer; every
// other line passes untouched.
func TestPluginHooks(t *testing.T) {
	o, dir := agentOptions(t)
	o.Hooks = &rpcpeer.Hooks{
		Prompt: func(m rpcpeer.Message) ([]byte, *acp.RequestError) {
			if bytes.Contains(m.Line, []byte(`"refuse"`)) {
				return nil, &acp.RequestError{Code: rpcpeer.CodeInternal, Message: "plugin refused " + m.SessionID}
			}
			return bytes.Replace(m.Line, []byte(`"TURN"`), []byte(`"turn"`), 1), nil
		},
		Update: func(m rpcpeer.Message) [][]byte {
			if bytes.Contains(m.Line, []byte(`x_future_kind`)) {
				return nil
			}
			return [][]byte{bytes.Replace(m.Line, []byte(`"working"`), []byte(`"WORKING"`), 1)}
		},
		TurnEnd: func(m rpcpeer.Message) ([][]byte, []byte) {
			return [][]byte{[]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"whole ` + string(m.Env.ID) + `"}}}}`)}, nil
		},
	}
	c := startClient(t, context.Background(), o, dir)
	c.initSession("/tmp/project")
	c.send(prompt("3", "TURN"))
	var got []string
	for {
		m, l := c.recvMsg()
		if m.Method == "session/request_permission" {
			c.send(`{"jsonrpc":"2.0","id":0,"result":{"outcome":{"outcome":"selected","optionId":"allow"}}}`)
			continue
		}
		if string(m.ID) == "3" {
			break
		}
		got = append(got, string(l))
	}
	if len(got) != 4 || !bytes.Contains([]byte(got[0]), []byte(`"text":"WORKING"`)) || !bytes.Contains([]byte(got[3]), []byte(`"text":"whole 3"`)) {
		t.Errorf("updates the client got (want the message chunk changed, x_future_kind dropped, the tool call's two, the turn end's):\n%q", got)
	}
	c.send(prompt("4", "refuse"))
	if m, l := c.recvMsg(); string(m.ID) != "4" || m.Error == nil || m.Error.Message != "plugin refused sess-1" {
		t.Errorf("a prompt the hook refuses: got %s", l)
	}
	c.in.Close()
	if err := c.wait(); err != nil {
		t.Fatal(err)
	}
	recv := bytes.Join(transcript(t, filepath.Join(dir, "recv.jsonl")), nil)
	if !bytes.Contains(recv, []byte(`"text":"turn"`)) || bytes.Contains(recv, []byte("TURN")) || bytes.Contains(recv, []byte("refuse")) {
		t.Errorf("the backend received:\n%s", recv)
	}
}

// TestRelayAllocs: relaying a backend's notification or answer, and a
// client's notification, allocates nothing when no plugin is declared
// (the envelope stays on the stack whatever the hooks do with theirs).
func TestRelayAllocs(t *testing.T) {
	r := &relay{log: &logger{stderr: io.Discard, now: time.Now}}
	r.out = newLockedWriter(io.Discard, func(error) {})
	update := benchLine(1024)
	answer := []byte(`{"jsonrpc":"2.0","id":"x","result":{}}` + "\n")
	note := bytes.Replace(update, []byte(`"session/update"`), []byte(`"_bench/note0000"`), 1)
	if n := testing.AllocsPerRun(100, func() {
		r.fromBackend(update)
		r.fromBackend(answer)
		if _, ok := r.fromClient(note); !ok {
			t.Fatal("a client's notification was not forwarded")
		}
	}); n != 0 {
		t.Errorf("%v allocations per relayed line, want 0", n)
	}
}
