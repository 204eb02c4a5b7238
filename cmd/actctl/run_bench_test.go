package main

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/internal/acptestagent"
	"github.com/actctl/actctl/launch"
)

var clockLine = regexp.MustCompile(`clock (\d+)`)

// agentClock is the time the scripted agent received session/prompt.
func agentClock(b *testing.B, out string) time.Time {
	m := clockLine.FindStringSubmatch(out)
	if m == nil {
		b.Fatalf("no clock line in %q", out)
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	return time.Unix(0, n)
}

func reportMedian(b *testing.B, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "ms-to-prompt(p50)")
	b.ReportMetric(float64(ds[0].Microseconds())/1000, "ms-to-prompt(min)")
}

// BenchmarkRunToFirstPrompt: from starting `actctl run` to the agent
// receiving session/prompt (process start, config load, a no-change
// apply, backend start, initialize, session/new). Compare with
// BenchmarkDirectToFirstPrompt; docs/run.md has the numbers.
func BenchmarkRunToFirstPrompt(b *testing.B) {
	root, home := runWorkspace(b)
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(actctlBin, "run", "reader", "-p", "clock")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
		start := time.Now()
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("run: %v %s", err, out)
		}
		ds = append(ds, agentClock(b, string(out)).Sub(start))
	}
	reportMedian(b, ds)
}

// BenchmarkDirectToFirstPrompt: the same agent started by the ACP client
// package itself, in process (backend start, initialize, session/new).
func BenchmarkDirectToFirstPrompt(b *testing.B) {
	self, _ := os.Executable()
	dir := b.TempDir()
	var ds []time.Duration
	for i := 0; i < b.N; i++ {
		rec := &clockObserver{}
		start := time.Now()
		c, err := acpclient.Start(context.Background(), acpclient.Options{
			Launch:    launch.Launch{Command: self, Env: map[string]string{acptestagent.Var: "1"}, Cwd: dir, Workspace: dir},
			ClientCwd: dir, Observer: rec,
		})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Prompt(context.Background(), "clock"); err != nil {
			b.Fatal(err)
		}
		c.Close()
		ds = append(ds, agentClock(b, rec.text).Sub(start))
	}
	reportMedian(b, ds)
}

type clockObserver struct{ text string }

func (o *clockObserver) Message([]byte) {}
func (o *clockObserver) Event(e acpclient.Event) {
	if e.Kind == acpclient.EventText {
		o.text += e.Text
	}
}
