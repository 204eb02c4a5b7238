package rpcpeer

import (
	"errors"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/lineframe"
)

// TestHooks: a hook sees only its method's messages (session/prompt
// requests inbound, session/update notifications and the answers to
// session/prompt outbound), with the session they name; without hooks
// every line passes as it is.
func TestHooks(t *testing.T) {
	prompt := []byte(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`)
	update := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk"}}}`)
	other := []byte(`{"jsonrpc":"2.0","id":4,"method":"session/new","params":{"cwd":"/p"}}`)
	var seen []string
	h := &Hooks{
		Prompt: func(m Message) ([]byte, *acp.RequestError) {
			seen = append(seen, "prompt "+m.SessionID)
			if m.Env.Kind != lineframe.KindRequest {
				t.Errorf("Prompt given a %v", m.Env.Kind)
			}
			return []byte(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`), nil
		},
		Update: func(m Message) [][]byte {
			seen = append(seen, "update "+m.SessionID)
			return [][]byte{m.Line, m.Line}
		},
	}
	for _, hooks := range []*Hooks{nil, {}, h} {
		seen = nil
		for _, line := range [][]byte{prompt, update, other} {
			env := lineframe.Parse(line)
			out, a := hooks.Inbound(line, &env)
			if a != nil {
				t.Fatalf("Inbound answered %s", a)
			}
			lines, hooked := hooks.Outbound(line, &env)
			switch {
			case hooks == h && string(line) == string(prompt):
				if string(out) == string(line) || hooked {
					t.Errorf("prompt: not transformed inbound (%s) or hooked outbound", out)
				}
			case hooks == h && string(line) == string(update):
				if string(out) != string(line) || !hooked || len(lines) != 2 {
					t.Errorf("update: inbound %s, outbound %v %d lines", out, hooked, len(lines))
				}
			default:
				if string(out) != string(line) || hooked {
					t.Errorf("%s passed a hook (out %s, hooked %v)", line, out, hooked)
				}
			}
		}
		if want := 2; hooks == h && len(seen) != want {
			t.Errorf("hooks saw %q, want the prompt and the update", seen)
		}
	}
	answer := []byte(`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`)
	env := lineframe.Parse(answer)
	h.TurnEnd = func(m Message) ([][]byte, []byte) { return [][]byte{[]byte("before " + string(m.Env.ID))}, nil }
	if got, a := h.Ended(answer, &env, acp.AgentMethodSessionPrompt); len(got) != 1 || string(got[0]) != "before 3" || string(a) != string(answer) {
		t.Errorf("TurnEnd on the answer to a prompt: %q, answer %s", got, a)
	}
	if got, a := h.Ended(answer, &env, acp.AgentMethodSessionNew); got != nil || string(a) != string(answer) {
		t.Errorf("TurnEnd on the answer to session/new: %q, answer %s", got, a)
	}
	if got, a := (*Hooks)(nil).Ended(answer, &env, acp.AgentMethodSessionPrompt); got != nil || string(a) != string(answer) {
		t.Errorf("no hooks: %q, answer %s", got, a)
	}
	h.TurnEnd = func(Message) ([][]byte, []byte) { return nil, []byte("failed") }
	if _, a := h.Ended(answer, &env, acp.AgentMethodSessionPrompt); string(a) != "failed" {
		t.Errorf("a TurnEnd that replaces the answer: %s", a)
	}
	refuse := &Hooks{Prompt: func(Message) ([]byte, *acp.RequestError) {
		return nil, &acp.RequestError{Code: CodeInternal, Message: "plugin failed"}
	}}
	env = lineframe.Parse(prompt)
	if _, a := refuse.Inbound(prompt, &env); string(a) != `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"plugin failed"}}` {
		t.Errorf("a refusing hook: %s", a)
	}
	cancelled := &Hooks{Prompt: func(Message) ([]byte, *acp.RequestError) { return nil, nil }}
	if _, a := cancelled.Inbound(prompt, &env); string(a) != `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}` {
		t.Errorf("a hook whose turn was cancelled: %s", a)
	}
}

// TestReadAhead: a session/cancel read while a prompt's hook runs
// reaches Cancel at once, ahead of the lines before it; one Cancel took
// is dropped, one it did not passes in order; every other line reaches
// handle in order, then read's error.
func TestReadAhead(t *testing.T) {
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"a","prompt":[]}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"a"}}`,
		`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"b"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}}`,
	}
	i := 0
	read := func() ([]byte, error) {
		if i == len(lines) {
			return nil, errDone
		}
		i++
		return []byte(lines[i-1]), nil
	}
	took := make(chan string, 2)
	h := &Hooks{Cancel: func(sid string) bool { took <- sid; return sid == "a" }}
	var handled []string
	err := h.ReadAhead(read, func(line []byte) {
		if len(handled) == 0 { // the prompt's hook runs until its cancel is read
			if sid := <-took; sid != "a" {
				t.Errorf("first cancel: %s", sid)
			}
		}
		handled = append(handled, string(line))
	}, func() {})
	if err != errDone || len(handled) != 3 || handled[0] != lines[0] || handled[1] != lines[2] || handled[2] != lines[3] {
		t.Errorf("handled %q, %v", handled, err)
	}
}

var errDone = errors.New("done")
