package lineframe

import (
	"encoding/json"
	"testing"
)

// TestParseValid: Valid says what json.Valid says, for messages and for
// every other JSON value or non-JSON line.
func TestParseValid(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{}}`,
		`  {"id":1,"result":null}` + "\r\n",
		`[1,2]`, `"text"`, `12.5e3`, `null`, `true`, ` 7 `,
		``, ` `, `{`, `{"a":1,}`, `not json`, `[1,`, `"a\x01"`, `{"a":1} {"b":2}`, `01`, `{"a":"\u12"}`,
		"{\"a\":\"\xff\"}",
	} {
		env := Parse([]byte(line))
		if want := json.Valid([]byte(line)); env.Valid != want {
			t.Errorf("%q: Valid %v, json.Valid %v", line, env.Valid, want)
		}
	}
}

// TestParseMembers: the envelope's members, as encoding/json reads them.
func TestParseMembers(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":"a\"b","result":{"stopReason":"end_turn"},"params":{"sessionId":"s\u0031","x":[1]}}`)
	env := Parse(line)
	if env.Kind != KindResponse || string(env.ID) != `"a\"b"` || env.Method != nil {
		t.Errorf("kind %d id %s method %s", env.Kind, env.ID, env.Method)
	}
	if got := string(line[env.Result.Start:env.Result.End]); got != `{"stopReason":"end_turn"}` {
		t.Errorf("result %s", got)
	}
	sid, ok := Unquote(Member(line, env.Params, "sessionId"))
	if !ok || string(sid) != "s1" {
		t.Errorf("sessionId %q %v", sid, ok)
	}
	if v := Member(line, env.Params, "none"); v != nil {
		t.Errorf("absent member: %s", v)
	}
	if v := Member(line, env.Result, "stopReason"); string(v) != `"end_turn"` {
		t.Errorf("stopReason %s", v)
	}
	if _, ok := Unquote([]byte(`12`)); ok {
		t.Error("Unquote of a number")
	}
	n := Parse([]byte(`{"jsonrpc":"2.0","method":"session/up\u0064ate","params":[1]}`))
	if n.Kind != KindNotification || !n.MethodIs("session/update") || Member([]byte(`x`), Span{}, "a") != nil {
		t.Errorf("notification: kind %d method %s", n.Kind, n.Method)
	}
}

// FuzzEnvelope: on any line, Valid agrees with json.Valid, and the
// params' sessionId found by Member agrees with encoding/json's.
func FuzzEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{}}}`,
		`{"id":1,"params":{"sessionId":"a\nb"}}`, "{\"params\":{\"sessionId\":\"\xff\"}}", `[]`, `"x"`, `{"params":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		env := Parse(b)
		if env.Valid != json.Valid(b) {
			t.Fatalf("%q: Valid %v", b, env.Valid)
		}
		var m struct {
			Params struct {
				SessionID *string `json:"sessionId"`
			} `json:"params"`
		}
		if !env.Valid || json.Unmarshal(b, &m) != nil || m.Params.SessionID == nil {
			return
		}
		sid, ok := Unquote(Member(b, env.Params, "sessionId"))
		if !ok || string(sid) != *m.Params.SessionID {
			// encoding/json matches keys without regard to case; the
			// scanner, as JSON-RPC, exactly.
			if Member(b, env.Params, "sessionId") != nil {
				t.Fatalf("%q: sessionId %q, encoding/json %q", b, sid, *m.Params.SessionID)
			}
		}
	})
}
