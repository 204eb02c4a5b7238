package materialize

import (
	"fmt"
	"slices"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestShadowInputs: the instruction files and the files they shadow of
// every agent whose backend declares shadows, each path once, in the
// order of the agents' names and then the backend's files; an agent
// whose backend declares none adds nothing.
func TestShadowInputs(t *testing.T) {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	codex := cfg.Templates["reviewer"]
	codex.Backend = "codex"
	cfg.Templates["codex"] = codex
	cfg.Agents = map[string]schema.Agent{
		"b":     {Template: "reviewer", WorkDir: "p/b"},
		"a":     {Template: "reviewer", WorkDir: "p/a"},
		"a2":    {Template: "reviewer", WorkDir: "p/a"}, // the same directory as a
		"c":     {Template: "reviewer"},
		"codex": {Template: "codex", WorkDir: "p/x"},
	}
	want := []string{
		"/ws/p/a/CLAUDE.md", "/ws/p/a/AGENTS.md",
		"/ws/p/b/CLAUDE.md", "/ws/p/b/AGENTS.md",
		"/ws/CLAUDE.md", "/ws/AGENTS.md",
	}
	if got := ShadowInputs(cfg); !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	b := cfg.Backends["claude-code"]
	b.Files.Instructions = []string{"CLAUDE.md", "AGENTS.md"} // a shadow that is also an instruction file
	cfg.Backends["claude-code"] = b
	cfg.Agents = map[string]schema.Agent{"a": {Template: "reviewer"}}
	if got, want := ShadowInputs(cfg), []string{"/ws/CLAUDE.md", "/ws/AGENTS.md"}; !slices.Equal(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// BenchmarkShadowInputs measures ShadowInputs, which every apply runs, at
// 1,000 and 10,000 agents each in its own directory (docs/benchmarks.md,
// "Apply at scale").
func BenchmarkShadowInputs(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			cfg := bigConfig(n, 1)
			for i := 0; i < 10; i++ { // every agent's backend declares shadows
				t := cfg.Templates[fmt.Sprintf("t%d", i)]
				t.Backend = "claude-code"
				cfg.Templates[fmt.Sprintf("t%d", i)] = t
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if got := ShadowInputs(cfg); len(got) != 2*n {
					b.Fatalf("%d paths", len(got))
				}
			}
		})
	}
}
