// Command procbench measures actctl the way users run it: whole processes
// of the built binary on the job of docs/benchmarks.md (200 skills and one
// MCP server into Claude Code, Codex and Cursor, 406 files: Cursor reads
// the other two's skill directories), beside three floors measured in the same run, and prints a markdown table:
//
//   - the start floor: a program linking only cuelang.org/go and doing
//     nothing (./startfloor), run beside --help and each no-change apply,
//     and each compared with the one beside it;
//   - the eval floor: a program linking only cuelang.org/go that loads,
//     evaluates and exports the same config with the same schema
//     (./evalfloor), run beside each edited apply on the edited config;
//   - the write floor: the files a cold apply writes, written by a minimal
//     durable writer in this process (directories first, then in parallel
//     a temp file, fsync, rename).
//
// Run from the module root:
//
//	go run ./internal/cmd/procbench -n 15
//
// With -scale 1000,5000,10000 it measures instead validate, a cold
// apply beside its write floor, the no-change apply (fast and full path)
// and status on workspaces of that many agents (docs/benchmarks.md,
// "10,000 agents"), with each process's peak memory.
//
// Each round runs every measurement in turn, in fresh temporary
// directories with their own ACTANT_HOME: --help, the no-change and the
// edited apply -k times each, every run beside its own floor run, so
// a drift in the machine's speed touches a figure and its floor alike;
// ratios (or differences) are taken pair by pair and their median reported. This is a benchmark, not a test: it judges nothing but
// prints the targets beside the figures.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/actctl/actctl/internal/benchconfig"
	"github.com/actctl/actctl/schema"
)

func main() {
	runs := flag.Int("n", 15, "rounds")
	pairs := flag.Int("k", 5, "per round: runs of --help, of the no-change and of the edited apply, each beside its own floor run")
	tmp := flag.String("dir", "", "directory for the temporary workspaces (default: the system's temp directory; use a disk, not tmpfs)")
	tags := flag.String("tags", installTags, "build tags of actctl's build (the README's install command uses "+installTags+"); empty for none")
	scale := flag.String("scale", "", "instead of the job: comma-separated numbers of agents (e.g. 1000,5000,10000): validate, cold apply, write floor, no-change apply, status on each")
	cold := flag.Int("cold", 0, "instead of the job: cold applies of this many agents by the prebuilt binaries of -actctl, alternated for -n rounds, each beside its directory-fsync write floor")
	bins := flag.String("actctl", "", "with -cold: comma-separated paths of prebuilt actctl binaries to compare")
	flag.Parse()
	if *cold > 0 {
		if *bins == "" {
			fmt.Fprintln(os.Stderr, "procbench: -cold needs -actctl")
			os.Exit(2)
		}
		if err := runCold(strings.Split(*bins, ","), *cold, *runs, *tmp); err != nil {
			fmt.Fprintln(os.Stderr, "procbench:", err)
			os.Exit(1)
		}
		return
	}
	if *scale != "" {
		sizes, err := parseSizes(*scale)
		if err == nil {
			err = runScale(sizes, *tmp, *tags)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "procbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*runs, *pairs, *tmp, *tags); err != nil {
		fmt.Fprintln(os.Stderr, "procbench:", err)
		os.Exit(1)
	}
}

// parseSizes parses -scale's list of agent counts.
func parseSizes(s string) ([]int, error) {
	var sizes []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-scale: %q is not a number of agents", f)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// sample is one measurement and the floor it is compared with, taken
// beside it (zero for a floor itself).
type sample struct{ v, floor time.Duration }

// samples are the figures of every round, per kind of work.
type samples map[work][]sample

type work int

const (
	startFloor work = iota
	evalFloor
	help
	writeFloorWork
	cold
	noop
	edit
)

// installTags are the build tags of the README's install command:
// urfave/cli without its man-page and markdown generators (blackfriday's
// package initialisation, ~1.5 ms of every process: docs/benchmarks.md).
const installTags = "urfave_cli_no_docs"

func run(runs, pairs int, tmpParent, tags string) error {
	dir, err := os.MkdirTemp(tmpParent, "procbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bins, err := build(dir, tags)
	if err != nil {
		return err
	}
	load0 := loadavg()
	all := samples{}
	for i := 0; i < runs+1; i++ { // the first round warms caches and is dropped
		s := samples{}
		if err := oneRound(filepath.Join(dir, fmt.Sprintf("r%d", i)), bins, pairs, s); err != nil {
			return fmt.Errorf("round %d: %w", i, err)
		}
		for w, l := range s {
			if i > 0 {
				all[w] = append(all[w], l...)
			}
		}
	}
	report(os.Stdout, all, runs, pairs, tags, load0, loadavg())
	return nil
}

// binaries are the programs a round runs; schema is the file of actctl's
// embedded schema, which the eval floor loads beside the config.
type binaries struct{ actctl, startFloor, evalFloor, schema string }

// build builds actctl (with tags) and the floors into dir, and writes the
// schema there.
func build(dir, tags string) (binaries, error) {
	b := binaries{filepath.Join(dir, "actctl"), filepath.Join(dir, "startfloor"), filepath.Join(dir, "evalfloor"), filepath.Join(dir, "schema.cue")}
	if err := os.WriteFile(b.schema, schema.Source, 0o644); err != nil {
		return b, err
	}
	for bin, pkg := range map[string]string{b.actctl: "./cmd/actctl", b.startFloor: "./internal/cmd/procbench/startfloor", b.evalFloor: "./internal/cmd/procbench/evalfloor"} {
		args := []string{"build", "-o", bin}
		if bin == b.actctl && tags != "" {
			args = append(args, "-tags", tags)
		}
		out, err := exec.Command("go", append(args, pkg)...).CombinedOutput()
		if err != nil {
			return b, fmt.Errorf("go build %s (run from the module root): %v\n%s", pkg, err, out)
		}
	}
	return b, nil
}

// oneRound measures, in this order: pairs of (start floor, actctl --help),
// a cold apply, the write floor of the files that apply wrote, pairs of
// (start floor, apply with nothing changed), and pairs of (eval floor,
// apply after editing one skill: each pair edits it again; the file is
// written again just before the apply, so that it is as fresh as a
// file saved just before an apply, as in the runs before the eval floor).
func oneRound(dir string, bins binaries, pairs int, s samples) error {
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	cfg := filepath.Join(ws, "actant.cue")
	if err := os.WriteFile(cfg, []byte(benchconfig.JobConfig(0)), 0o644); err != nil {
		return err
	}
	// paired runs prepare, times the floor (the start floor, or with
	// evaluate the eval floor on the workspace), runs prepare again, then
	// times actctl with args and checks its output.
	paired := func(w work, evaluate bool, prepare func() error, check func(out string) error, args ...string) error {
		floorWork, floor := startFloor, []string{bins.startFloor}
		if evaluate {
			floorWork, floor = evalFloor, []string{bins.evalFloor, bins.schema, ws}
		}
		for i := 0; i < pairs; i++ {
			if err := prepare(); err != nil {
				return err
			}
			f, _, err := timed(home, floor[0], floor[1:]...)
			if err != nil {
				return err
			}
			if err := prepare(); err != nil {
				return err
			}
			d, out, err := timed(home, bins.actctl, args...)
			if err != nil {
				return err
			}
			if err := check(out); err != nil {
				return err
			}
			s[floorWork] = append(s[floorWork], sample{v: f})
			s[w] = append(s[w], sample{d, f})
		}
		return nil
	}
	none := func() error { return nil }
	accept := func(string) error { return nil }
	if err := paired(help, false, none, accept, "--help"); err != nil {
		return err
	}
	apply := []string{"-C", ws, "apply"}
	c, _, err := timed(home, bins.actctl, apply...)
	if err != nil {
		return err
	}
	f, err := writeFloor(ws, filepath.Join(dir, "floor"))
	if err != nil {
		return err
	}
	s[cold] = append(s[cold], sample{c, f})
	s[writeFloorWork] = append(s[writeFloorWork], sample{v: f})
	if err := paired(noop, false, none, func(out string) error {
		if !strings.Contains(out, "no changes") {
			return fmt.Errorf("apply with nothing changed changed something:\n%s", out)
		}
		return nil
	}, apply...); err != nil {
		return err
	}
	rev, fresh := 0, false
	if err := paired(edit, true, func() error {
		// Odd calls make a new revision, even ones write it again.
		if fresh = !fresh; fresh {
			rev++
		}
		return os.WriteFile(cfg, []byte(benchconfig.JobConfig(rev)), 0o644)
	}, func(out string) error {
		if want := fmt.Sprintf("applied: %d changed", benchconfig.JobSkillCopies); !strings.Contains(out, want) {
			return fmt.Errorf("apply after one edit: want %q in\n%s", want, out)
		}
		return nil
	}, apply...); err != nil {
		return err
	}
	return os.RemoveAll(dir)
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
