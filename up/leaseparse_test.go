package up

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// parseDecoding is the lease's parse as it was with encoding/json: the
// reference the scanner's parse must agree with.
func parseDecoding(line []byte) (m message, ok bool) {
	var env struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(line, &env) != nil {
		return m, false
	}
	m = message{ID: compact(env.ID), Method: env.Method, Params: env.Params, Result: env.Result, Error: env.Error}
	var p struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(env.Params, &p) == nil {
		m.SessionID = p.SessionID
	}
	return m, true
}

var leaseLines = []string{
	`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`,
	`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s-1","update":{"sessionUpdate":"agent_message_chunk"}}}`,
	`{"jsonrpc":"2.0","id": "a b" ,"result":{"sessionId":"s-2"}}`,
	`{"jsonrpc":"2.0","id":7,"error":{"code":-32000,"message":"auth"}}`,
	`{"jsonrpc":"2.0","id":null,"result":null,"params":null}`,
	`{"method":"session/up\u0064ate","params":{"sessionId":"s\u00e9"}}`,
	`{"method":"x","params":{"sessionId":3}}`,
	`{"method":"x","params":[1]}`,
	`{"method":3}`,
	`{"id":{ "a" : [1, 2] }}`,
	"{\"method\":\"x\",\"params\":{\"sessionId\":\"\xff\"}}",
	`[1]`, `"s"`, `nope`, `{"a":`, `{}`, `null`, ` null `, `nul`, `true`,
}

// TestLeaseParse: the lease reads a line's envelope with the scanner as it
// did decoding it (ids compacted, members absent as nil, the session id).
func TestLeaseParse(t *testing.T) {
	for _, line := range leaseLines {
		checkParse(t, []byte(line))
	}
}

// FuzzLeaseParse: the same on any line.
func FuzzLeaseParse(f *testing.F) {
	for _, line := range leaseLines {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if otherCase(line) {
			return // encoding/json matches keys without regard to case, the scanner as JSON-RPC spells them
		}
		checkParse(t, line)
	})
}

func checkParse(t *testing.T, line []byte) {
	t.Helper()
	got, ok := parse(line)
	want, wantOK := parseDecoding(line)
	if ok != wantOK || !reflect.DeepEqual(got, want) {
		t.Errorf("%q:\n got %+v %v\nwant %+v %v", line, got, ok, want, wantOK)
	}
}

// otherCase reports whether line may spell a member the lease reads in
// another case ("Method", "pArAms").
func otherCase(line []byte) bool {
	lower := bytes.ToLower(line)
	for _, k := range []string{`"id"`, `"method"`, `"params"`, `"result"`, `"error"`, `"sessionId"`} {
		if bytes.Count(lower, bytes.ToLower([]byte(k))) != bytes.Count(line, []byte(k)) {
			return true
		}
	}
	return bytes.Contains(lower, []byte(`\u`)) // an escaped key may spell one too
}
