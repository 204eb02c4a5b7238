package materialize

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/actctl/actctl/schema"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestGolden renders the sample agent for every built-in backend, as a tool
// (project) agent and as a repo (instance) agent, and compares the result
// with testdata/<backend>-<archetype>.golden. Run
// `go test ./materialize -run TestGolden -update` after an intended change
// and review the diff.
func TestGolden(t *testing.T) {
	for _, backend := range []string{"claude-code", "codex", "gemini", "cursor", "cursor-agent", "antigravity", "pi", "copilot", "opencode", "devin", "cline", "kiro", "amp", "qwen", "goose", "kilo", "junie", "factory", "auggie", "warp", "zed", "aiassistant", "crush", "vibe", "kimi", "rovodev", "deepagents", "grok", "zoo"} {
		for _, arch := range []string{schema.ArchTool, schema.ArchRepo} {
			name := backend + "-" + arch
			t.Run(name, func(t *testing.T) {
				cfg := sampleConfig(backend, arch)
				r, err := cfg.Resolve("reviewer")
				if err != nil {
					t.Fatal(err)
				}
				tg, err := Render(cfg, r, Options{})
				if err != nil {
					t.Fatal(err)
				}
				got := dump(tg)
				file := filepath.Join("testdata", name+".golden")
				if *update {
					if err := os.MkdirAll("testdata", 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("%v (run with -update to create it)", err)
				}
				if got != string(want) {
					t.Errorf("output differs from %s (run with -update and review the diff):\n--- got ---\n%s", file, got)
				}
			})
		}
	}
}
