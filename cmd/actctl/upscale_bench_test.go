//go:build linux

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkUpScaleBinary runs `actctl up` on 200 and on 1,000 idle
// agents of the test agent (half services, half employees whose hourly
// heartbeat is never due), through the binary, and reports (issue #37
// item 6; docs/benchmarks.md, "up at 200 and 1,000 agents"):
//
//   - KB-rss/agent: up's whole resident memory over the agents, once the
//     start wave has settled and 10 s idle passed (the agents are other
//     processes); KB-anon/agent, the same without the binary's text and
//     files mapped (RssAnon: what the agents cost); threads, up's OS
//     threads;
//   - %cpu-idle: up's CPU over those 10 s, in % of one core;
//   - ms-status(p50/p99): `actctl status` while they run (b.N runs);
//   - agent-page: an employee's dashboard page viewed b.N times, its
//     p50, and up's RSS growth over the views (MB-rss-growth) and once
//     up gave their memory back (MB-rss-growth-settled).
//
// The config is dated an hour back, so that up's apply records its
// inputs and config cache (a config saved just before up starts is racy:
// status then evaluates and renders it). The agents run with GOMAXPROCS=1
// (4 threads each): 1,000 of them need about 4,000 tasks. Run one size
// per process: skipped with -short.
//
//	go test ./cmd/actctl -run '^$' -bench 'UpScaleBinary/agents=200/' -benchtime 20x
func BenchmarkUpScaleBinary(b *testing.B) {
	for _, n := range []int{200, 1000} {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) { upScale(b, n) })
	}
}

// upScale is one size of BenchmarkUpScaleBinary: up is started once,
// and its sub-benchmarks report (a benchmark with sub-benchmarks runs
// once).
func upScale(b *testing.B, n int) {
	root, home := idleWorkspace(b, n)
	// With ACTCTL_DEBUG=1 up says when it gave memory back: the
	// measures below wait for that line (env execs up: the same pid).
	p := runUp(b, exec.Command("env", "ACTCTL_DEBUG=1", actctlBin, "up", "--grace", "2s"), root, home)
	defer stopUp(b, p)
	dash := p.waitLine(`up: dashboard (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)[1]
	for range n {
		p.waitLine(`: process:start pid \d+`)
	}
	pid := p.cmd.Process.Pid
	p.waitLine(releasedLine) // the start wave settled (up.SettleAfter after the last start)
	idle := idleCPU(b, pid, 10*time.Second)
	rss, threads := procRSSKB(b, pid), procStatus(b, pid, "Threads:")
	anon := procStatus(b, pid, "RssAnon:")
	b.Run("idle", func(b *testing.B) {
		b.ReportMetric(float64(rss)/float64(n), "KB-rss/agent")
		b.ReportMetric(float64(anon)/float64(n), "KB-anon/agent")
		b.ReportMetric(float64(threads), "threads")
		b.ReportMetric(idle, "%cpu-idle")
	})
	b.Run("status", func(b *testing.B) { benchStatus(b, root, home) })
	b.Run("agent-page", func(b *testing.B) { benchAgentPage(b, p, dash, pid, n) })
}

// benchAgentPage views one employee's dashboard page b.N times and
// reports its time and up's resident memory after the views beside
// before them (issue #37 item 3: a page works on its agent only, and
// the views leave up's memory where it was).
func benchAgentPage(b *testing.B, p *upProc, dash string, pid, n int) {
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if res, err := c.Get(dash); err != nil || res.StatusCode != 200 {
		b.Fatalf("log in: %v %v", res, err)
	}
	u, _ := url.Parse(dash)
	before := procRSSKB(b, pid)
	var ds []time.Duration
	for b.Loop() {
		t := time.Now()
		res, err := c.Get("http://" + u.Host + "/agents/emp-1")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("the page: %d", res.StatusCode)
		}
		ds = append(ds, time.Since(t))
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "ms-page(p50)")
	b.ReportMetric(float64(procRSSKB(b, pid)-before)/1024, "MB-rss-growth")
	b.StopTimer()
	p.waitLine(releasedLine) // up gave the views' memory back (Manager.ReleaseLater)
	b.ReportMetric(float64(procRSSKB(b, pid)-before)/1024, "MB-rss-growth-settled")
}

// releasedLine is what `actctl up` says, with ACTCTL_DEBUG=1, each time it
// gave memory back to the system.
const releasedLine = `^actctl: debug: up: memory given back to the system$`

// idleWorkspace writes a workspace of n agents on the test agent, half
// services, half employees with an hourly heartbeat, its config dated an
// hour back.
func idleWorkspace(b *testing.B, n int) (root, home string) {
	root, home = b.TempDir(), filepath.Join(b.TempDir(), "home")
	var sb strings.Builder
	sb.WriteString("package actant\n" + scriptedBackend(b, `GOMAXPROCS: "1"`) + "\n")
	sb.WriteString(`templates: {
	svc: {backend: "scripted", archetype: "service"}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check the queue"}}
}
`)
	for i := range n {
		if i%2 == 0 {
			fmt.Fprintf(&sb, "agents: \"svc-%d\": template: \"svc\"\n", i)
		} else {
			fmt.Fprintf(&sb, "agents: \"emp-%d\": template: \"emp\"\n", i)
		}
	}
	writeConfigTB(b, root, sb.String())
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(root, "actant.cue"), old, old); err != nil {
		b.Fatal(err)
	}
	return root, home
}
