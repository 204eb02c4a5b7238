package schema

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteBenchConfig writes the BenchmarkLoad workspace for 1000 agents
// (plus the schema) to $ACTCTL_BENCH_DIR, so `cue export` can be timed on
// exactly the same input (see docs/benchmarks.md). It does nothing
// otherwise.
func TestWriteBenchConfig(t *testing.T) {
	dir := os.Getenv("ACTCTL_BENCH_DIR")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, "actant.cue"), []byte(genConfig(1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "schema.cue"), Source, 0o644); err != nil {
		t.Fatal(err)
	}
}
