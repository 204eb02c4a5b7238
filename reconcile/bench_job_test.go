package reconcile

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/actctl/actctl/internal/benchconfig"
	"github.com/actctl/actctl/schema"
)

// The whole-process job of docs/benchmarks.md (200 skills and one MCP
// server into Claude Code, Codex and Cursor, 406 files since Cursor reads
// the other two's skill directories; 607 before), applied in
// process: the config is loaded once, so these measure everything after
// the load (render, snapshot, plan, execute, state, journal).

func jobBench(b *testing.B) *schema.Config {
	b.Helper()
	root, home := b.TempDir(), b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte(benchconfig.JobConfig(0)), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, err := schema.LoadDir(root, home)
	if err != nil {
		b.Fatal(err)
	}
	res, err := Apply(context.Background(), cfg, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if res.Counts.Created < benchconfig.JobSkills*benchconfig.JobSkillCopies {
		b.Fatalf("cold apply of the job created %d files", res.Counts.Created)
	}
	return cfg
}

// BenchmarkJobEditSkill edits the one skill's content and applies: each
// copy of the skill's file changes (benchconfig.JobSkillCopies).
func BenchmarkJobEditSkill(b *testing.B) {
	cfg := jobBench(b)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		s := cfg.Skills[benchconfig.EditSkill]
		s.Content = benchconfig.JobSkillContent(0, i+1)
		cfg.Skills[benchconfig.EditSkill] = s
		res, err := Apply(context.Background(), cfg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Counts.Changed != benchconfig.JobSkillCopies || !res.StateWritten {
			b.Fatalf("editing one skill: want %d files changed and the state written, got %+v", benchconfig.JobSkillCopies, res.Counts)
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkJobNoop applies the job with nothing changed.
func BenchmarkJobNoop(b *testing.B) {
	cfg := jobBench(b)
	b.ReportAllocs()
	b.ResetTimer()
	applyNoops(b, cfg)
}
