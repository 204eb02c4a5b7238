package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/benchconfig"

	"github.com/actctl/actctl/schema"
)

// TestJobConfig checks the benchmark's job: it loads, has one agent per
// backend with every skill and the MCP server, and two revisions differ in
// the edited skill's line only.
func TestJobConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "actant.cue"), []byte(benchconfig.JobConfig(0)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := schema.LoadDir(dir, filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Agents) != len(benchconfig.JobBackends) || len(cfg.Skills) != benchconfig.JobSkills {
		t.Fatalf("%d agents, %d skills", len(cfg.Agents), len(cfg.Skills))
	}
	for _, b := range benchconfig.JobBackends {
		tp := cfg.Templates[cfg.Agents[b].Template]
		if tp.Backend != b || len(tp.Skills) != benchconfig.JobSkills || len(tp.MCPServers) != 1 {
			t.Errorf("agent %s: backend %q, %d skills, %d MCP servers", b, tp.Backend, len(tp.Skills), len(tp.MCPServers))
		}
	}
	var diff []string
	a, b := strings.Split(benchconfig.JobConfig(0), "\n"), strings.Split(benchconfig.JobConfig(1), "\n")
	for i := range a {
		if a[i] != b[i] {
			diff = append(diff, b[i])
		}
	}
	if len(a) != len(b) || len(diff) != 1 || !strings.Contains(diff[0], benchconfig.EditSkill) {
		t.Errorf("revisions differ in %q", diff)
	}
}

// TestWriteFloorCopiesTree checks that both write floors write the same
// files as apply (all but the config, the lock and the repository), with
// the same bytes.
func TestWriteFloorCopiesTree(t *testing.T) {
	for name, floor := range map[string]func(ws, dst string) (time.Duration, error){"plain": writeFloor, "directory fsyncs": writeDirFloor} {
		t.Run(name, func(t *testing.T) { testFloorCopiesTree(t, floor) })
	}
}

func testFloorCopiesTree(t *testing.T, floor func(ws, dst string) (time.Duration, error)) {
	ws, dst := t.TempDir(), filepath.Join(t.TempDir(), "floor")
	files := map[string]string{
		"actant.cue":                  "package actant\n",
		".actant/lock":                "1\n",
		".actant/state.json":          "{}\n",
		"CLAUDE.md":                   "# c\n",
		".claude/skills/a/SKILL.md":   "a\n",
		".claude/skills/a-b/SKILL.md": "ab\n",
		".git/HEAD":                   "ref: refs/heads/main\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Join(ws, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := floor(ws, dst); err != nil {
		t.Fatal(err)
	}
	for p, c := range files {
		got, err := os.ReadFile(filepath.Join(dst, p))
		skipped := p == "actant.cue" || p == ".actant/lock" || p == ".git/HEAD"
		if skipped != os.IsNotExist(err) || (!skipped && string(got) != c) {
			t.Errorf("%s: %q, %v", p, got, err)
		}
	}
	var n int
	filepath.WalkDir(dst, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			n++
		}
		return err
	})
	if n != len(files)-3 {
		t.Errorf("%d files written, want %d (no temp files left)", n, len(files)-3)
	}
}

// TestParseSizes checks -scale's list: numbers of agents, a bad one named.
func TestParseSizes(t *testing.T) {
	got, err := parseSizes("1000, 5000,10000")
	if err != nil || len(got) != 3 || got[0] != 1000 || got[2] != 10000 {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "10,x", "0", "-5"} {
		if _, err := parseSizes(bad); err == nil || !strings.Contains(err.Error(), "-scale:") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// TestReportScale checks the scale table: a column pair per size, the
// time per 1,000 agents, the peak memory where known.
func TestReportScale(t *testing.T) {
	var b strings.Builder
	runs := map[string]scaleRun{}
	for _, w := range scaleWork {
		runs[w] = scaleRun{d: 2 * time.Second, rssK: 2048}
	}
	runs["write floor"] = scaleRun{d: time.Second}
	runs["cold / directory-fsync floor"] = scaleRun{ratio: 1.25}
	reportScale(&b, []int{2000}, map[int]map[string]scaleRun{2000: runs}, "1 1 1", "2 2 2")
	for _, want := range []string{"| work | 2000 agents | per 1,000 |", "| apply, cold | 2.00 s, 2 MiB | 1.000 s, 1.0 KB/agent |",
		"| write floor | 1.00 s | 0.500 s |", "| cold / directory-fsync floor | 1.25x | |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// TestFitGrowth: a fixed cost plus a cost per agent is found again from
// its times, with exponent near 1 (below it by the fixed part) and above
// 1 for a quadratic step; fewer than two sizes or a zero time fit nothing.
func TestFitGrowth(t *testing.T) {
	ns := []int{10, 100, 1000, 10000}
	times := func(f func(n float64) float64) []float64 {
		var ts []float64
		for _, n := range ns {
			ts = append(ts, f(float64(n)))
		}
		return ts
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6*math.Max(1, math.Abs(b)) }
	g, ok := fitGrowth(ns, times(func(n float64) float64 { return 0.02 + 0.0005*n }))
	if !ok || !near(g.fixed, 0.02) || !near(g.perAgent, 0.0005) || g.exponent < 0.98 || g.exponent > 1 {
		t.Errorf("linear: %+v %v", g, ok)
	}
	if got, want := g.String(), "0.020 s + 0.500 ms/agent, n^0.98"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	g, _ = fitGrowth(ns, times(func(n float64) float64 { return 0.01 + 1e-7*n*n }))
	if !near(g.exponent, math.Log(10.01/0.11)/math.Log(10)) {
		t.Errorf("quadratic: exponent %v", g.exponent)
	}
	for _, bad := range [][]float64{{1}, {1, 0}, {1, 2, 3}} {
		if _, ok := fitGrowth(ns[:min(len(bad), 2)], bad); ok {
			t.Errorf("fitted %v", bad)
		}
	}
}

// TestAgent0Edited: the scale round's edit changes agent-0's line alone,
// each revision to another value.
func TestAgent0Edited(t *testing.T) {
	config := benchconfig.ConfigSkills(3, 1)
	one, err := agent0Edited(config, 1)
	if err != nil {
		t.Fatal(err)
	}
	two, _ := agent0Edited(one, 2)
	for _, got := range []string{one, two} {
		if got == config || len(strings.Split(got, "\n")) != len(strings.Split(config, "\n")) {
			t.Fatalf("edit changed more than one line or nothing:\n%s", got)
		}
		if !strings.Contains(got, `agents: "agent-1": {template: "base", workDir: "work/agent-1", vars: project: "p1"}`) {
			t.Fatalf("agent-1 changed:\n%s", got)
		}
	}
	if !strings.Contains(two, `vars: project: "p0-r2"}`) || one == two {
		t.Fatalf("revision 2 not applied:\n%s", two)
	}
	if _, err := agent0Edited("package actant\n", 1); err == nil {
		t.Fatal("no error without agent-0")
	}
}

// TestReportCold checks the cold A/B table: a row per binary with the
// medians of its rounds and the median of its ratios to the floor.
func TestReportCold(t *testing.T) {
	var b strings.Builder
	rounds := func(s ...float64) []coldRun {
		var out []coldRun
		for _, x := range s {
			d := time.Duration(x * float64(time.Second))
			out = append(out, coldRun{d: d, floor: time.Second, cpu: d / 2, rssK: 10240})
		}
		return out
	}
	reportCold(&b, []string{"old", "new"}, 1000, [][]coldRun{rounds(3, 1, 2), rounds(1.5, 1.2, 9)}, "1 1 1", "2 2 2")
	for _, want := range []string{"| old | 2.00 s | 1.00 s | 2.00x | 1.00 s | 10 MiB (10.5 KB/agent) |", "| new | 1.50 s | 1.00 s | 1.50x |", "3 rounds alternated"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
