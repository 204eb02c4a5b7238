package plugin

import (
	"context"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/lineframe"
	"github.com/actctl/actctl/schema"
)

// BenchmarkRelayPrompt: what a prefix plugin adds to a session/prompt on
// the proxy's relay (its Prompt hook: the prompt's blocks cut out of the
// line, decoded, the chain, the line re-encoded), and to the answer that
// ends the turn (docs/benchmarks.md). With no plugin the relay has no
// hooks (proxy's TestRelayAllocs).
func BenchmarkRelayPrompt(b *testing.B) {
	set, err := New(&schema.Config{Plugins: map[string]schema.Plugin{
		"rules": {Kind: schema.PluginPrefix, Text: "Team rules: small commits, tests first."},
	}}, []string{"rules"}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	h := set.Hooks(context.Background(), RelayOptions{})
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"` +
		strings.Repeat("a prompt of some length ", 40) + `"}]}}`)
	answer := []byte(`{"jsonrpc":"2.0","id":7,"result":{"stopReason":"end_turn"}}`)
	env, aenv := lineframe.Parse(line), lineframe.Parse(answer)
	for b.Loop() {
		if _, e := h.Inbound(line, &env); e != nil {
			b.Fatal(e)
		}
		h.Ended(answer, &aenv, "session/prompt")
	}
}
