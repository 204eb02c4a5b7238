package materialize

import (
	"fmt"
	"testing"

	"github.com/actctl/actctl/schema"
)

// BenchmarkCheckProtectedJob: the protected-path check of the benchmark
// job's 600 skill files, three agents at the root (docs/benchmarks.md).
func BenchmarkCheckProtectedJob(b *testing.B) {
	root := "/ws/proj"
	var ts []*Target
	for _, d := range []string{".claude/skills", ".agents/skills", ".cursor/skills"} {
		t := &Target{Agent: d, Dir: root}
		for i := 0; i < 200; i++ {
			t.Entries = append(t.Entries, Entry{Path: fmt.Sprintf("%s/skill-%03d/SKILL.md", d, i)})
		}
		ts = append(ts, t)
	}
	cfg := &schema.Config{Root: root}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if d := checkProtected(cfg, ts); len(d) != 0 {
			b.Fatal(d)
		}
	}
}
