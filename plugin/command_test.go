package plugin

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/schema"
)

// commandVar makes the test binary a command plugin that upper-cases the
// text it is given (inbound: the text blocks; outbound: a chunk's text).
const commandVar = "ACTCTL_TEST_PLUGIN_COMMAND"

func TestMain(m *testing.M) {
	if os.Getenv(commandVar) != "" {
		os.Exit(upperCommand())
	}
	os.Exit(m.Run())
}

func upperCommand() int {
	if os.Getenv(commandVar) == "fail" {
		os.Stderr.WriteString("nope\n")
		return 2
	}
	var in CommandInput
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		os.Stderr.WriteString("bad input\n")
		return 2
	}
	var out CommandOutput
	for _, b := range in.Prompt {
		if b.Text != nil {
			b = acp.TextBlock(strings.ToUpper(b.Text.Text))
		}
		out.Prompt = append(out.Prompt, b)
	}
	if in.Update != nil {
		var u map[string]any
		json.Unmarshal(in.Update, &u)
		if c, ok := u["content"].(map[string]any); ok {
			c["text"] = strings.ToUpper(c["text"].(string))
		}
		out.Update, _ = json.Marshal(u)
	}
	json.NewEncoder(os.Stdout).Encode(out)
	return 0
}

// TestCommandPlugin: a command plugin reads the documented JSON on stdin
// and writes it on stdout, inbound and outbound; one that fails passes
// the text on with the failure named.
func TestCommandPlugin(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	plugins := map[string]schema.Plugin{
		"up":  {Kind: schema.PluginCommand, Command: exe, On: schema.OnBoth, Env: map[string]string{commandVar: "1"}},
		"bad": {Kind: schema.PluginCommand, Command: exe, Env: map[string]string{commandVar: "fail"}},
	}
	f, _ := newSession(t, plugins, []string{"up"}, nil)
	if got, err := promptText(t, f, "hello"); err != nil || got != "HELLO" {
		t.Errorf("inbound: %q, %v", got, err)
	}
	if got := texts(t, f.Update(context.Background(), chunk("world"))); got != "WORLD" {
		t.Errorf("outbound: %q", got)
	}
	// The bad one exits 2, saying why on stderr.
	f, ev := newSession(t, plugins, []string{"bad"}, nil)
	if got, err := promptText(t, f, "hello"); err != nil || got != "hello" || !strings.Contains(ev.steps[0].Error, "exit status 2: nope") {
		t.Errorf("failing command: %q, %v, %+v", got, err, ev.steps)
	}
}

// BenchmarkPromptChain: what the plugins add to a prompt: an empty chain
// (no plugin: no Filter at all on the session, so the figure is the one
// of a nil check) and a prefix plugin (docs/benchmarks.md).
func BenchmarkPromptChain(b *testing.B) {
	blocks := []acp.ContentBlock{acp.TextBlock(strings.Repeat("a prompt of some length ", 40))}
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		plugins []string
	}{{"empty", nil}, {"prefix", []string{"rules"}}, {"prefix+redact", []string{"rules", "secrets"}}} {
		set, err := New(&schema.Config{Plugins: map[string]schema.Plugin{
			"rules":   {Kind: schema.PluginPrefix, Text: "Team rules: small commits, tests first."},
			"secrets": {Kind: schema.PluginRedact, Patterns: []string{`tok-[0-9a-f]{32}`}},
		}}, tc.plugins, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			if set == nil {
				for b.Loop() {
					_ = blocks
				}
				return
			}
			f := set.Filter(nil)
			for b.Loop() {
				if _, err := f.Prompt(ctx, blocks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkUpdateChain: what a redact plugin adds to each agent message
// chunk (docs/benchmarks.md).
func BenchmarkUpdateChain(b *testing.B) {
	set, err := New(&schema.Config{Plugins: map[string]schema.Plugin{
		"secrets": {Kind: schema.PluginRedact, Patterns: []string{`tok-[0-9a-f]{32}`}},
	}}, []string{"secrets"}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	f := set.Filter(nil)
	params := chunk(strings.Repeat("some streamed answer ", 10))
	ctx := context.Background()
	for b.Loop() {
		f.Update(ctx, params)
	}
}
