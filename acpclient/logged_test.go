package acpclient

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestParseLogged: what each logged message says of the turn, as
// `actctl logs` renders it: text, a tool call with its default state,
// an update with only the fields it gives, a permission request, and
// the messages it does not read.
func TestParseLogged(t *testing.T) {
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	for _, tc := range []struct {
		method, params string
		ok             bool
		want           string // kind|text|permission|id|title|toolKind|status
	}{
		{"session/update", `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}`, true, "text|hi|false||<nil>|<nil>|<nil>"},
		{"session/update", `{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Read","kind":"read"}}`, true, "tool_call||false|c1|Read|read|pending"},
		{"session/update", `{"sessionId":"s","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}}`, true, "tool_call||false|c1|<nil>|<nil>|completed"},
		{"session/request_permission", `{"sessionId":"s","toolCall":{"toolCallId":"c2","title":"Edit","kind":"edit"},"options":[]}`, true, "tool_call||true|c2|Edit|edit|<nil>"},
		{"session/update", `{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hm"}}}`, true, "||false||<nil>|<nil>|<nil>"},
		{"session/update", `{"sessionId":`, false, ""},
		{"session/prompt", `{}`, false, ""},
	} {
		l, ok := ParseLogged(tc.method, json.RawMessage(tc.params))
		if ok != tc.ok {
			t.Errorf("%s %s: ok %v", tc.method, tc.params, ok)
			continue
		}
		if !ok {
			continue
		}
		kind, status := "<nil>", "<nil>"
		if l.ToolKind != nil {
			kind = string(*l.ToolKind)
		}
		if l.Status != nil {
			status = string(*l.Status)
		}
		got := fmt.Sprintf("%s|%s|%t|%s|%s|%s|%s", l.Kind, l.Text, l.Permission, l.ID, str(l.Title), kind, status)
		if got != tc.want {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.method, tc.params, got, tc.want)
		}
	}
}
