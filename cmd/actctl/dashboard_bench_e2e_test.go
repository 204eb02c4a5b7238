//go:build linux

package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"
)

// benchTeam is the size of BenchmarkDashboardUp's workspace: one in ten
// a repo agent (on demand, no process), the others half services, half
// employees.
const benchTeam = 200

// benchRunning is how many of them up starts.
const benchRunning = benchTeam - benchTeam/10

// dashTeamWorkspace declares n agents on the scripted test agent: a repo
// agent every tenth, services and employees by turns, the employees'
// heartbeat an hour (nothing ticks while the benchmark measures).
func dashTeamWorkspace(b *testing.B, n int) (root, home string) {
	root, home = b.TempDir(), b.TempDir()+"/home"
	var cfg strings.Builder
	// One thread of Go code per test agent: 180 of them stay far below a
	// task limit (pids.max) that threads count against.
	cfg.WriteString("package actant\n" + scriptedBackend(b, `GOMAXPROCS: "1"`) + `
templates: {
	svc: {backend: "scripted", archetype: "service"}
	emp: {backend: "scripted", archetype: "employee", schedule: heartbeat: {interval: "1h", prompt: "check the queue"}}
	rp: {backend: "scripted", archetype: "repo"}
}
`)
	for i := range n {
		tpl := "svc"
		switch {
		case i%10 == 9:
			tpl = "rp"
		case i%2 == 1:
			tpl = "emp"
		}
		fmt.Fprintf(&cfg, "agents: \"agent-%03d\": template: %q\n", i, tpl)
	}
	writeConfigTB(b, root, cfg.String())
	return root, home
}

// idleCPU is the share of a core (percent) process pid used over a
// window of d: a measuring window, not a wait for an event.
func idleCPU(b *testing.B, pid int, d time.Duration) float64 {
	t0, w0 := procCPU(b, pid), time.Now()
	<-time.After(d)
	return 100 * (procCPU(b, pid) - t0).Seconds() / time.Since(w0).Seconds()
}

// BenchmarkDashboardUp measures the dashboard of a real `actctl up`
// holding 200 agents on the test agent, 180 running and 20 repo agents on
// demand (its real Source, upserve.Server.Source): the server time of the
// agents page, of an employee's page and of a repo agent's page (the
// round trip over loopback, an upper bound), and the share of a core
// `up` uses while idle, without a page open and with eight live pages
// (docs/dashboard.md, "Benchmarks").
func BenchmarkDashboardUp(b *testing.B) {
	if testing.Short() {
		b.Skip("starts 200 agents")
	}
	root, home := dashTeamWorkspace(b, benchTeam)
	p := startUp(b, root, home)
	u := p.waitLine(`up: dashboard (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)[1]
	for range benchRunning {
		p.waitLine(`up: agent-\d+: process:start pid`)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	if res, err := c.Get(u); err != nil || res.StatusCode != 200 {
		b.Fatalf("log in: %v %v", res, err)
	}
	pu, _ := url.Parse(u)
	base := "http://" + pu.Host
	get := func(b *testing.B, path string) {
		res, err := c.Get(base + path)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			b.Fatalf("%s: %d", path, res.StatusCode)
		}
		b.SetBytes(n)
	}
	b.Run("agents-page", func(b *testing.B) {
		for b.Loop() {
			get(b, "/")
		}
	})
	b.Run("employee-page", func(b *testing.B) {
		for b.Loop() {
			get(b, "/agents/agent-001")
		}
	})
	b.Run("repo-page", func(b *testing.B) {
		for b.Loop() {
			get(b, "/agents/agent-009")
		}
	})
	pid := p.cmd.Process.Pid
	const window = 10 * time.Second
	closed := idleCPU(b, pid, window)
	for range 8 {
		res, err := c.Get(base + "/live")
		if err != nil || res.StatusCode != 200 {
			b.Fatalf("live: %v %v", res, err)
		}
		defer res.Body.Close()
	}
	open := idleCPU(b, pid, window)
	stopUp(b, p)
	b.Run("idle", func(b *testing.B) {
		b.ReportMetric(closed, "%cpu-idle")
		b.ReportMetric(open, "%cpu-idle-8-live")
	})
}
