// Command procbench measures actctl the way users run it: whole processes
// of the built binary on the job of docs/benchmarks.md (200 skills and one
// MCP server into Claude Code, Codex and Cursor, about 600 files), beside
// two floors measured in the same run, and prints a markdown table:
//
//   - the start floor: a program linking only cuelang.org/go and doing
//     nothing (./startfloor), run beside --help and each warm apply, and
//     each compared with the one beside it;
//   - the write floor: the files a cold apply writes, written by a minimal
//     durable writer in this process (directories first, then in parallel
//     a temp file, fsync, rename).
//
// Run from the module root:
//
//	go run ./internal/cmd/procbench -n 15
//
// Each round runs every measurement once, in turn, in fresh temporary
// directories with their own ACTANT_HOME, so a drift in the machine's speed
// touches all of them alike; ratios are taken round by round and their
// median reported. This is a benchmark, not a test: it judges nothing but
// prints the targets beside the figures.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("n", 15, "rounds")
	tmp := flag.String("dir", "", "directory for the temporary workspaces (default: the system's temp directory; use a disk, not tmpfs)")
	flag.Parse()
	if err := run(*runs, *tmp); err != nil {
		fmt.Fprintln(os.Stderr, "procbench:", err)
		os.Exit(1)
	}
}

// round holds one round's figures.
type round struct {
	help, cold, floor, noop, edit time.Duration
	// The start floor, run just before help, noop and edit: each is
	// compared with the start floor run beside it.
	startHelp, startNoop, startEdit time.Duration
}

func run(runs int, tmpParent string) error {
	dir, err := os.MkdirTemp(tmpParent, "procbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bins, err := build(dir)
	if err != nil {
		return err
	}
	load0 := loadavg()
	var rounds []round
	for i := 0; i < runs+1; i++ { // the first round warms caches and is dropped
		r, err := oneRound(filepath.Join(dir, fmt.Sprintf("r%d", i)), bins)
		if err != nil {
			return fmt.Errorf("round %d: %w", i, err)
		}
		if i > 0 {
			rounds = append(rounds, r)
		}
	}
	report(os.Stdout, rounds, load0, loadavg())
	return nil
}

type binaries struct{ actctl, startFloor string }

// build builds actctl and the start floor into dir.
func build(dir string) (binaries, error) {
	b := binaries{filepath.Join(dir, "actctl"), filepath.Join(dir, "startfloor")}
	for bin, pkg := range map[string]string{b.actctl: "./cmd/actctl", b.startFloor: "./internal/cmd/procbench/startfloor"} {
		out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
		if err != nil {
			return b, fmt.Errorf("go build %s (run from the module root): %v\n%s", pkg, err, out)
		}
	}
	return b, nil
}

// oneRound measures, in this order: actctl --help, a cold apply, the write
// floor of the files that apply wrote, an apply with nothing changed, and
// an apply after editing one skill; the start floor runs just before
// --help, the no-change and the edited apply, each compared with its own.
func oneRound(dir string, bins binaries) (r round, err error) {
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return r, err
	}
	cfg := filepath.Join(ws, "actant.cue")
	if err := os.WriteFile(cfg, []byte(jobConfig(0)), 0o644); err != nil {
		return r, err
	}
	if r.startHelp, _, err = timed(home, bins.startFloor); err != nil {
		return r, err
	}
	if r.help, _, err = timed(home, bins.actctl, "--help"); err != nil {
		return r, err
	}
	apply := []string{"-C", ws, "apply"}
	if r.cold, _, err = timed(home, bins.actctl, apply...); err != nil {
		return r, err
	}
	if r.floor, err = writeFloor(ws, filepath.Join(dir, "floor")); err != nil {
		return r, err
	}
	if r.startNoop, _, err = timed(home, bins.startFloor); err != nil {
		return r, err
	}
	var out string
	if r.noop, out, err = timed(home, bins.actctl, apply...); err != nil {
		return r, err
	}
	if !strings.Contains(out, "no changes") {
		return r, fmt.Errorf("second apply changed something:\n%s", out)
	}
	if err := os.WriteFile(cfg, []byte(jobConfig(1)), 0o644); err != nil {
		return r, err
	}
	if r.startEdit, _, err = timed(home, bins.startFloor); err != nil {
		return r, err
	}
	if r.edit, out, err = timed(home, bins.actctl, apply...); err != nil {
		return r, err
	}
	if want := fmt.Sprintf("applied: %d changed", len(jobBackends)); !strings.Contains(out, want) {
		return r, fmt.Errorf("apply after one edit: want %q in\n%s", want, out)
	}
	return r, os.RemoveAll(dir)
}

// timed runs bin with ACTANT_HOME=home and returns its wall time, from just
// before the start to just after the exit, and its standard output.
func timed(home, bin string, args ...string) (time.Duration, string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ACTANT_HOME="+home, "NO_COLOR=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t := time.Now()
	err := cmd.Run()
	d := time.Since(t)
	if err != nil {
		return d, "", fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, stderr.String())
	}
	return d, stdout.String(), nil
}
