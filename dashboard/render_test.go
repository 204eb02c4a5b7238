package dashboard

import (
	"reflect"
	"strings"
	"testing"
)

func TestReadLog(t *testing.T) {
	log := strings.Join([]string{
		`{"jsonrpc":"2.0","id":0,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"hi"}]}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hel"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"lo"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"read a.txt"}}}`,
		`{"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t1","title":"read a.txt"},"options":[{"optionId":"y","name":"Allow","kind":"allow_once"},{"optionId":"n","name":"No","kind":"reject_once"}]}}`,
		`{"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"selected","optionId":"y"}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t2","title":"rm -rf /"},"options":[{"optionId":"y","name":"Allow","kind":"allow_once"},{"optionId":"n","name":"No","kind":"reject_once"}]}}`,
		`{"jsonrpc":"2.0","id":8,"result":{"outcome":{"outcome":"selected","optionId":"n"}}}`,
		`{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t3","title":"x"},"options":[]}}`,
		`{"jsonrpc":"2.0","id":9,"result":{"outcome":{"outcome":"cancelled"}}}`,
		`not json`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"boom"}}`,
		`{"jsonrpc":"2.0","method":"_actctl/plugin","params":{"plugin":"to-user","direction":"outbound","durationMs":12,"inBytes":5,"outBytes":6,"changed":true,"outcome":"ok"}}`,
		`{"jsonrpc":"2.0","id":0,"result":{"stopReason":"end_turn"}}`,
	}, "\n")
	items, perms := ReadLog([]byte(log))
	want := []Item{
		{Kind: "text", Text: "Hello"},
		{Kind: "tool", ID: "t1", Title: "read a.txt", Status: "completed"},
		{Kind: "permission", Title: "read a.txt", Status: "allowed"},
		{Kind: "permission", Title: "rm -rf /", Status: "denied"},
		{Kind: "permission", Title: "x", Status: "denied"},
		{Kind: "error", Text: "boom"},
		{Kind: "plugin", Title: "to-user", Status: "ok", Text: "plugin to-user (outbound): 5 -> 6 bytes in 12 ms"},
		{Kind: "stop", Text: "end_turn"},
	}
	if !reflect.DeepEqual(items, want) {
		t.Fatalf("items:\n%+v\nwant\n%+v", items, want)
	}
	if perms != (Permissions{Allowed: 1, Denied: 2}) {
		t.Fatalf("permissions %+v", perms)
	}
}
