package main

import (
	"os"
	"os/exec"
	"sort"
	"syscall"
	"testing"
	"time"
)

// stopUp ends a benchmark's `actctl up` the way a user does (SIGTERM),
// so that no agent outlives it.
func stopUp(b *testing.B, p *upProc) {
	b.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		b.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		b.Fatalf("up after SIGTERM: %v\n%s", err, p.stderr())
	}
}

// upCommand runs `actctl ARGS...` in the workspace and returns its stdout.
func upCommand(b *testing.B, root, home string, args ...string) string {
	b.Helper()
	cmd := exec.Command(actctlBin, args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("actctl %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// BenchmarkUpPromptToAgent: from starting `actctl prompt api -p clock`
// to the warm service (held by one `actctl up`) receiving the prompt:
// process start, control socket, a new session on the running backend.
// Compare with BenchmarkRunToFirstPrompt, which starts the backend each
// time; docs/benchmarks.md has the numbers.
func BenchmarkUpPromptToAgent(b *testing.B) {
	root, home := upWorkspace(b)
	p := startUp(b, root, home, "api")
	p.started("api")
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(actctlBin, "prompt", "api", "-p", "clock")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
		start := time.Now()
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("prompt: %v %s", err, out)
		}
		ds = append(ds, agentClock(b, string(out)).Sub(start))
	}
	b.StopTimer()
	reportMedian(b, ds)
	stopUp(b, p)
}

// BenchmarkUpRestartAfterKill: from SIGKILL of a service held by `actctl
// up` to up reporting its new process (the process:start line on its
// stderr): the 1 s backoff, the backend start, initialize and the primary
// session. `actctl restart` between iterations forgets the failure, so
// every kill waits the first backoff, not a doubled one.
func BenchmarkUpRestartAfterKill(b *testing.B) {
	root, home := upWorkspace(b)
	p := startUp(b, root, home, "api")
	pid := p.started("api")
	var ds []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		if err := killProcess(pid); err != nil {
			b.Fatal(err)
		}
		p.waitLine(`up: api: process:crash`)
		p.started("api")
		ds = append(ds, time.Since(start))
		b.StopTimer()
		upCommand(b, root, home, "restart", "api")
		pid = p.started("api")
		b.StartTimer()
	}
	b.StopTimer()
	reportSpread(b, "ms-kill-to-up", ds)
	stopUp(b, p)
}

// reportSpread reports the median and the slowest of ds, in ms.
func reportSpread(b *testing.B, unit string, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, unit+"(p50)")
	b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, unit+"(max)")
}
