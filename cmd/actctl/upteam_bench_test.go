//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkUpTeamBinary runs `actctl up` on a workspace of 200 employees
// (heartbeat 1m) and 20 services on the test agent, through the binary,
// and reports (issue #21 item 7; up's BenchmarkUpTeam has the in-process
// figures), in its sub-benchmarks status (b.N runs) and team (measured
// once):
//
//   - KB-rss/agent: up's resident memory with all 220 agents started, per
//     agent (the agents are other processes); threads, up's OS threads
//     then (docs/runtime.md, "Limits");
//   - %cpu-idle: up's CPU over 10 s with every agent warm and nothing due
//     (target < 1% of a core);
//   - ms-status(p50/p99): `actctl status` while the team runs (b.N runs);
//   - ms-prompt50-all, ms-prompt50(p50/p99): 50 concurrent `actctl prompt`
//     processes to one service, from their start to their exit.
//
// It starts 220 processes: skipped with -short.
//
//	go test ./cmd/actctl -run '^$' -bench UpTeamBinary -benchtime 20x
func BenchmarkUpTeamBinary(b *testing.B) {
	if testing.Short() {
		b.Skip("starts 220 agents")
	}
	root, home := teamWorkspace(b, 200, 20)
	p := startUp(b, root, home)
	for i := 0; i < 220; i++ {
		p.waitLine(`: process:start pid \d+`)
	}
	pid := p.cmd.Process.Pid
	rss, threads := procRSSKB(b, pid), procStatus(b, pid, "Threads:")

	idle := idleCPU(b, pid, 10*time.Second)
	b.Run("status", func(b *testing.B) { benchStatus(b, root, home) })

	all := time.Now()
	prompts := make([]time.Duration, 50)
	var wg sync.WaitGroup
	for i := range prompts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(actctlBin, "prompt", "svc-0", "-p", "hello")
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "ACTANT_HOME="+home)
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Errorf("prompt: %v\n%s", err, out)
			}
			prompts[i] = time.Since(start)
		}()
	}
	wg.Wait()
	prompt50 := time.Since(all)
	stopUp(b, p)
	b.Run("team", func(b *testing.B) {
		b.ReportMetric(float64(prompt50.Microseconds())/1000, "ms-prompt50-all")
		b.ReportMetric(float64(rss)/220, "KB-rss/agent")
		b.ReportMetric(float64(threads), "threads")
		b.ReportMetric(idle, "%cpu-idle")
		reportQuantiles(b, "ms-prompt50", prompts)
	})
}

// benchStatus runs `actctl status` b.N times in root and reports its
// ms-status(p50/p99).
func benchStatus(b *testing.B, root, home string) {
	status := make([]time.Duration, b.N)
	for i := range status {
		start := time.Now()
		upCommand(b, root, home, "status")
		status[i] = time.Since(start)
	}
	reportQuantiles(b, "ms-status", status)
}

// teamWorkspace writes a workspace of employees (heartbeat 1m) and
// services on the scripted test agent (each lives in its instance
// directory under the actctl home).
func teamWorkspace(b *testing.B, employees, services int) (root, home string) {
	root, home = b.TempDir(), filepath.Join(b.TempDir(), "home")
	var sb strings.Builder
	sb.WriteString("package actant\n" + scriptedBackend(b, "") + "\n")
	sb.WriteString(`templates: {
	svc: {backend: "scripted", archetype: "service"}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1m", prompt: "check the queue"}}
}
`)
	agent := func(name, tmpl string) {
		fmt.Fprintf(&sb, "agents: %q: template: %q\n", name, tmpl)
	}
	for i := 0; i < employees; i++ {
		agent(fmt.Sprintf("emp-%d", i), "emp")
	}
	for i := 0; i < services; i++ {
		agent(fmt.Sprintf("svc-%d", i), "svc")
	}
	writeConfigTB(b, root, sb.String())
	return root, home
}

// procRSSKB is the resident memory of process pid (VmRSS).
func procRSSKB(b *testing.B, pid int) int { return procStatus(b, pid, "VmRSS:") }

// procStatus is a numeric field of /proc/PID/status (in kB where it has
// that unit).
func procStatus(b *testing.B, pid int, name string) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(l, name); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatalf("no %s for pid %d", name, pid)
	return 0
}

// procCPU is the user and system time of process pid so far, from
// /proc/PID/stat (in clock ticks of 10 ms: Linux's USER_HZ).
func procCPU(b *testing.B, pid int) time.Duration {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command name, which is in parentheses.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", pid, data)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// reportQuantiles reports the p50 and p99 of ds, in ms.
func reportQuantiles(b *testing.B, unit string, ds []time.Duration) {
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	at := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000 }
	b.ReportMetric(at(0.5), unit+"(p50)")
	b.ReportMetric(at(0.99), unit+"(p99)")
}
