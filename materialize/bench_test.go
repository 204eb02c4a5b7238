package materialize

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/actctl/actctl/internal/benchconfig"
	"github.com/actctl/actctl/schema"
)

// bigConfig builds nAgents tool agents, each in its own workDir, spread
// over five backends and ten templates; every template has skillsPer
// skills (drawn from a pool of 10*skillsPer), two prompts and two MCP
// servers.
func bigConfig(nAgents, skillsPer int) *schema.Config {
	cfg := sampleConfig("claude-code", schema.ArchTool)
	cfg.Agents = map[string]schema.Agent{}
	backends := []string{"claude-code", "codex", "gemini", "cursor", "pi"}
	pool := 10 * skillsPer
	for i := 0; i < pool; i++ {
		cfg.Skills[fmt.Sprintf("skill-%03d", i)] = schema.Skill{
			Description: fmt.Sprintf("Skill number %d. Use when: task %d", i, i),
			Content:     fmt.Sprintf("# Skill %d\n\nWork on {{repo}} carefully.\n\n%s", i, lorem),
			Files:       map[string][]byte{"references/notes.md": []byte(lorem)},
		}
	}
	for ti := 0; ti < 10; ti++ {
		var skills []string
		for s := 0; s < skillsPer; s++ {
			skills = append(skills, fmt.Sprintf("skill-%03d", (ti*skillsPer+s)%pool))
		}
		cfg.Templates[fmt.Sprintf("t%d", ti)] = schema.Template{
			Version: "1.0.0", Description: "Template", Backend: backends[ti%len(backends)], Archetype: schema.ArchTool,
			Skills: skills, Prompts: []string{"role", "style"}, MCPServers: []string{"github", "fs"},
			Vars: map[string]string{"repo": "acme/api", "tone": "neutral"},
		}
	}
	for i := 0; i < nAgents; i++ {
		cfg.Agents[fmt.Sprintf("agent-%04d", i)] = schema.Agent{Template: fmt.Sprintf("t%d", i%10), WorkDir: fmt.Sprintf("p/%04d", i)}
	}
	return cfg
}

const lorem = "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.\n"

// BenchmarkRenderAll measures the pure rendering part of `apply` with no
// change (docs/benchmarks.md: 100 agents x 20 skills <= 50 ms and 1000 x 20
// <= 400 ms for the whole no-op apply, of which rendering is a part).
func BenchmarkRenderAll(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("agents=%d/skills=20", n), func(b *testing.B) {
			cfg := bigConfig(n, 20)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ts, diags := RenderAll(cfg, Options{})
				if len(ts) != n || len(diags.Errors()) > 0 {
					b.Fatalf("%d targets, %v", len(ts), diags.Errors())
				}
			}
		})
	}
}

// BenchmarkRenderAllJob renders the benchmark job of docs/benchmarks.md
// (200 skills and one MCP server into three agents at the root, ~600
// files): the render part of BenchmarkJobEditSkill in reconcile.
func BenchmarkRenderAllJob(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(benchconfig.JobConfig(0)), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, err := schema.LoadDir(root, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if ts, diags := RenderAll(cfg, Options{}); len(ts) != len(benchconfig.JobBackends) || len(diags.Errors()) > 0 {
			b.Fatalf("%d targets, %v", len(ts), diags.Errors())
		}
	}
}
