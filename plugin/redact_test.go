package plugin

import (
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestRedactLine: what a log records of a line has the redact patterns
// replaced in every string of its params, result and error (a permission
// request's raw input, an answer's text), never in the members that
// route it (id, method, sessionId, kinds); a line with no match is recorded as it is, byte for byte; one that is not a JSON
// object is redacted as text.
func TestRedactLine(t *testing.T) {
	set, err := New(&schema.Config{Plugins: map[string]schema.Plugin{"s": {Kind: schema.PluginRedact, Patterns: []string{"tok-[0-9]+"}}}}, []string{"s"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","id":"tok-1","method":"session/request_permission","params":{"sessionId":"tok-2","toolCall":{"toolCallId":"c","kind":"execute","rawInput":{"cmd":"curl -H tok-3"}}}}`,
			`{"id":"tok-1","jsonrpc":"2.0","method":"session/request_permission","params":{"sessionId":"tok-2","toolCall":{"kind":"execute","rawInput":{"cmd":"curl -H [REDACTED]"},"toolCallId":"c"}}}`},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"bad tok-9"}}`, `{"error":{"code":-32603,"message":"bad [REDACTED]"},"id":7,"jsonrpc":"2.0"}`},
		{`{"jsonrpc":"2.0", "id":1.50,"result":{"stopReason":"end_turn"}}`, `{"jsonrpc":"2.0", "id":1.50,"result":{"stopReason":"end_turn"}}`},
		{`tok-1 not json`, `[REDACTED] not json`},
	} {
		if got := string(set.RedactLine([]byte(c.in))); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	if got := string((*Set)(nil).RedactLine([]byte("tok-1"))); got != "tok-1" {
		t.Errorf("a nil Set: %q", got)
	}
}
