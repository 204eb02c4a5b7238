package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/actctl/actctl/internal/benchconfig"
)

// scaleSkills is how many skills the agents of the scale workspaces
// share: each agent gets its own workDir with ~6 files.
const scaleSkills = 2

// scaleRun is one command's time and peak memory at one size.
type scaleRun struct {
	d     time.Duration
	rssK  int64   // peak resident memory in KiB (0 where unknown)
	ratio float64 // instead of d and rssK: a ratio of two of the round's times
}

// scaleWork are the measurements of one size, in the table's order.
var scaleWork = []string{"validate", "apply, cold", "write floor", "write floor, directory fsyncs", "cold / directory-fsync floor", "apply, no change", "apply, no change, full path", "status",
	"status, after a settled apply", "apply, one agent edited", "apply agent-0, one agent edited"}

// runScale measures, for each size in sizes, whole processes of actctl on
// a workspace of that many agents (benchconfig.FilesSkills with
// scaleSkills), and prints a table (docs/benchmarks.md, "10,000 agents").
func runScale(sizes []int, tmpParent, tags string) error {
	dir, err := os.MkdirTemp(tmpParent, "procbench-scale-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bins, err := build(dir, tags)
	if err != nil {
		return err
	}
	load0 := loadavg()
	all := map[int]map[string]scaleRun{}
	for _, n := range sizes {
		r, err := scaleRound(filepath.Join(dir, strconv.Itoa(n)), bins.actctl, n)
		if err != nil {
			return fmt.Errorf("%d agents: %w", n, err)
		}
		all[n] = r
	}
	reportScale(os.Stdout, sizes, all, load0, loadavg())
	return nil
}

// scaleRound writes the workspace of n agents under dir and times, in
// order: validate (evaluating), a cold apply, the write floor of what it
// wrote, a no-change apply (the fast path; the median of three), a
// no-change apply after actant.cue was touched (the full path: evaluate,
// render, snapshot, plan), status, status again after an apply that
// recorded its inputs settled (its fast path), and two applies of one agent's edit
// in actant.cue (agent-0's vars), the second naming the agent
// (docs/benchmarks.md, "One agent's edit at 10,000 agents").
func scaleRound(dir, actctl string, n int) (map[string]scaleRun, error) {
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := writeScaleWorkspace(ws, n); err != nil {
		return nil, err
	}
	r := map[string]scaleRun{}
	run := func(work, want string, args ...string) error {
		d, rss, out, err := timedRSS(home, actctl, append([]string{"-C", ws}, args...)...)
		if err != nil {
			return err
		}
		if !strings.Contains(out, want) {
			return fmt.Errorf("%s: want %q in\n%s", work, want, out)
		}
		r[work] = scaleRun{d: d, rssK: rss}
		return nil
	}
	if err := run("validate", "", "validate"); err != nil {
		return nil, err
	}
	if err := run("apply, cold", "applied:", "apply"); err != nil {
		return nil, err
	}
	f, err := writeFloor(ws, filepath.Join(dir, "floor"))
	if err != nil {
		return nil, err
	}
	r["write floor"] = scaleRun{d: f}
	f, err = writeDirFloor(ws, filepath.Join(dir, "dirfloor"))
	if err != nil {
		return nil, err
	}
	r["write floor, directory fsyncs"] = scaleRun{d: f}
	r["cold / directory-fsync floor"] = scaleRun{ratio: float64(r["apply, cold"].d) / float64(f)}
	var fast []scaleRun
	for i := 0; i < 3; i++ {
		if err := run("apply, no change", "no changes", "apply"); err != nil {
			return nil, err
		}
		fast = append(fast, r["apply, no change"])
	}
	r["apply, no change"] = medianRun(fast)
	now := time.Now()
	if err := os.Chtimes(filepath.Join(ws, "actant.cue"), now, now); err != nil {
		return nil, err
	}
	if err := run("apply, no change, full path", "no changes", "apply"); err != nil {
		return nil, err
	}
	if err := run("status", "", "status"); err != nil {
		return nil, err
	}
	// The touched actant.cue was racy: this apply records the inputs
	// settled, so that status takes its fast path (workspace.Status).
	if err := run("settle", "no changes", "apply"); err != nil {
		return nil, err
	}
	if err := run("status, after a settled apply", "", "status"); err != nil {
		return nil, err
	}
	for rev, args := range [][]string{{"apply"}, {"apply", "agent-0"}} {
		if err := editAgent0(filepath.Join(ws, "actant.cue"), rev+1); err != nil {
			return nil, err
		}
		if err := run(scaleWork[9+rev], "1 changed", args...); err != nil {
			return nil, err
		}
	}
	return r, os.RemoveAll(dir)
}

// editAgent0 rewrites agent-0's vars in the actant.cue at path
// (benchconfig.ConfigSkills), revision rev, so that an apply changes
// that agent's instructions alone.
func editAgent0(path string, rev int) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := agent0Edited(string(b), rev)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// agent0Edited is config with agent-0's project var at revision rev.
func agent0Edited(config string, rev int) (string, error) {
	const line = `agents: "agent-0": {template: "base", workDir: "work/agent-0", vars: project: `
	i := strings.Index(config, line)
	if i < 0 {
		return "", fmt.Errorf("no agent-0 line in the config")
	}
	j := strings.IndexByte(config[i:], '\n')
	if j < 0 {
		j = len(config) - i
	}
	return config[:i] + line + fmt.Sprintf("%q}", fmt.Sprintf("p0-r%d", rev)) + config[i+j:], nil
}

// writeScaleWorkspace writes the workspace of n agents
// (benchconfig.FilesSkills with scaleSkills) into ws as a user keeps it:
// a git repository with the config and the skills committed (what
// apply reads of git, such as the tracked paths a .gitignore block
// leaves out, is then part of what is timed).
func writeScaleWorkspace(ws string, n int) error {
	if err := benchconfig.WriteFilesSkills(ws, n, scaleSkills); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "team"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.com",
			"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// medianRun is the run of the median time of rs.
func medianRun(rs []scaleRun) scaleRun {
	for i := range rs {
		for j := i + 1; j < len(rs); j++ {
			if rs[j].d < rs[i].d {
				rs[i], rs[j] = rs[j], rs[i]
			}
		}
	}
	return rs[len(rs)/2]
}

// timedRSS is timed with the process's peak resident memory (KiB, Linux's
// ru_maxrss; 0 where unknown).
func timedRSS(home, bin string, args ...string) (time.Duration, int64, string, error) {
	d, ps, out, err := timedProcess(home, bin, args...)
	if err != nil {
		return d, 0, "", err
	}
	return d, maxRSS(ps), out, nil
}

// timedProcess runs bin with args and ACTANT_HOME=home and returns its
// wall time, its process state and its stdout.
func timedProcess(home, bin string, args ...string) (time.Duration, *os.ProcessState, string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t := time.Now()
	err := cmd.Run()
	d := time.Since(t)
	if err != nil {
		return d, nil, "", fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return d, cmd.ProcessState, stdout.String(), nil
}

// perAgentKB is ", N KB/agent" for a peak memory of rssK KiB at n
// agents, or "" where it is unknown.
func perAgentKB(rssK int64, n int) string {
	if rssK == 0 {
		return ""
	}
	return fmt.Sprintf(", %.1f KB/agent", float64(rssK)*1.024/float64(n))
}

func reportScale(w io.Writer, sizes []int, all map[int]map[string]scaleRun, load0, load1 string) {
	fmt.Fprintf(w, "%s, %s/%s, %d CPUs, agents x %d skills, load average %s at the start, %s at the end\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), scaleSkills, load0, load1)
	fmt.Fprint(w, "| work |")
	for _, n := range sizes {
		fmt.Fprintf(w, " %d agents | per 1,000 |", n)
	}
	fmt.Fprint(w, " fitted growth |\n|---|")
	for range sizes {
		fmt.Fprint(w, "---|---|")
	}
	fmt.Fprintln(w, "---|")
	for _, work := range scaleWork {
		fmt.Fprintf(w, "| %s |", work)
		var ts []float64
		for _, n := range sizes {
			r := all[n][work]
			if r.ratio != 0 {
				fmt.Fprintf(w, " %.2fx | |", r.ratio)
				continue
			}
			mem := ""
			if r.rssK > 0 {
				mem = fmt.Sprintf(", %.0f MiB", float64(r.rssK)/1024)
			}
			fmt.Fprintf(w, " %.2f s%s | %.3f s%s |", r.d.Seconds(), mem, r.d.Seconds()*1000/float64(n), perAgentKB(r.rssK, n))
			ts = append(ts, r.d.Seconds())
		}
		fit := ""
		if g, ok := fitGrowth(sizes, ts); ok {
			fit = g.String()
		}
		fmt.Fprintf(w, " %s |\n", fit)
	}
}
