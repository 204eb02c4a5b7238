package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/atomicfile"
)

// BenchmarkWatchLatency measures, per save of actant.cue, the time from the
// save to the start of the cycle (Run called: debounce + loop overhead) and
// to the end of the cycle's report, with a Run that reads the config and
// writes two output files durably (atomic write + fsync), like a small
// apply. Reported as p50/p99 in milliseconds; run with e.g.
//
//	go test ./watch/ -run '^$' -bench WatchLatency -benchtime 200x
func BenchmarkWatchLatency(b *testing.B) {
	for _, style := range []string{"inplace", "rename"} {
		b.Run(style, func(b *testing.B) { benchWatchLatency(b, style) })
	}
}

func benchWatchLatency(b *testing.B, style string) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	cfg := filepath.Join(root, "actant.cue")
	if err := os.WriteFile(cfg, []byte("v\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(root, ".claude")
	if err := os.MkdirAll(out, 0o755); err != nil {
		b.Fatal(err)
	}
	started := make(chan time.Time, 1)
	reported := make(chan time.Time, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, Options{
			Base: Spec{Patterns: map[string][]string{root: {"*.cue"}}},
			Run: func(ctx context.Context, trigger []string) (Result, error) {
				t := time.Now()
				data, err := os.ReadFile(cfg)
				if err != nil {
					return Result{}, err
				}
				written := []string{filepath.Join(root, "CLAUDE.md"), filepath.Join(out, "settings.json")}
				for _, p := range written {
					if err := atomicfile.Write(p, data, 0o644); err != nil {
						return Result{}, err
					}
				}
				select {
				case started <- t:
				default:
				}
				return Result{Written: written, Summary: "applied: 2 changed, 0 pruned"}, nil
			},
			Report: func(Cycle) {
				select {
				case reported <- time.Now():
				default:
				}
			},
		})
	}()
	<-started // initial apply
	<-reported

	var toStart, toEnd []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		content := []byte(fmt.Sprintf("v%d\n", i))
		t0 := time.Now()
		switch style {
		case "inplace":
			err = os.WriteFile(cfg, content, 0o644)
		case "rename":
			tmp := filepath.Join(root, ".actant.cue.new")
			if err = os.WriteFile(tmp, content, 0o644); err == nil {
				err = os.Rename(tmp, cfg)
			}
		}
		if err != nil {
			b.Fatal(err)
		}
		ts := <-started
		te := <-reported
		toStart = append(toStart, ts.Sub(t0))
		toEnd = append(toEnd, te.Sub(t0))
	}
	b.StopTimer()
	cancel()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
	report := func(name string, ds []time.Duration) {
		slices.Sort(ds)
		q := func(f float64) float64 { return float64(ds[int(f*float64(len(ds)-1))]) / 1e6 }
		b.ReportMetric(q(0.50), name+"-p50-ms")
		b.ReportMetric(q(0.99), name+"-p99-ms")
	}
	report("start", toStart)
	report("end", toEnd)
}
