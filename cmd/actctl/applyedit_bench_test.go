package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/benchconfig"
)

// BenchmarkApplyEditConfig runs, in process, the apply after one edit of
// actant.cue on the job of docs/benchmarks.md (200 skills into Claude
// Code, Codex and Cursor): each iteration edits one skill again, then
// applies, which must change that skill's copies. It is what procbench's
// "one skill edited" row times through the binary, without the process
// start, for a profile:
//
//	go test ./cmd/actctl -run '^$' -bench ApplyEditConfig -benchtime 50x -cpuprofile /tmp/edit.prof
func BenchmarkApplyEditConfig(b *testing.B) {
	ws, home := b.TempDir(), filepath.Join(b.TempDir(), "home")
	cfg := filepath.Join(ws, "actant.cue")
	apply := func(rev int) string {
		if err := os.WriteFile(cfg, []byte(benchconfig.JobConfig(rev)), 0o644); err != nil {
			b.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := run([]string{"actctl", "-C", ws, "--home", home, "apply"}, &out, &errb); code != 0 {
			b.Fatalf("apply: exit %d\n%s", code, errb.String())
		}
		return out.String()
	}
	apply(0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out := apply(i + 1)
		if want := fmt.Sprintf("applied: %d changed", benchconfig.JobSkillCopies); !strings.Contains(out, want) {
			b.Fatalf("want %q in\n%s", want, out)
		}
	}
}
