package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// coldRun is one cold apply and the directory-fsync floor of its files.
type coldRun struct {
	d, floor, cpu time.Duration
	rssK          int64
}

// runCold times cold applies of n agents (benchconfig.FilesSkills with
// scaleSkills) by each of the prebuilt actctl binaries bins, alternated
// for rounds rounds, each beside the write floor with directory fsyncs
// of the files it wrote, and prints the medians per binary
// (docs/benchmarks.md, "Cold apply at 10,000 agents"): an A/B of two
// builds under the same load.
func runCold(bins []string, n, rounds int, tmpParent string) error {
	dir, err := os.MkdirTemp(tmpParent, "procbench-cold-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	load0 := loadavg()
	all := make([][]coldRun, len(bins))
	for r := 0; r < rounds; r++ {
		for i, bin := range bins {
			c, err := coldRound(filepath.Join(dir, fmt.Sprint(i)), bin, n)
			if err != nil {
				return fmt.Errorf("%s: %w", bin, err)
			}
			all[i] = append(all[i], c)
			// Each run as it ends, so that a run cut short still tells.
			fmt.Fprintf(os.Stderr, "round %d %s: cold %.2f s, floor %.2f s, CPU %.2f s, %d KiB, load %s\n",
				r+1, bin, c.d.Seconds(), c.floor.Seconds(), c.cpu.Seconds(), c.rssK, loadavg())
		}
	}
	reportCold(os.Stdout, bins, n, all, load0, loadavg())
	return nil
}

// coldRound writes the workspace of n agents under dir, applies it with
// bin and writes the same files again as the floor does.
func coldRound(dir, bin string, n int) (coldRun, error) {
	defer os.RemoveAll(dir)
	ws, home := filepath.Join(dir, "ws"), filepath.Join(dir, "home")
	if err := writeScaleWorkspace(ws, n); err != nil {
		return coldRun{}, err
	}
	d, rss, cpu, out, err := timedCPU(home, bin, "-C", ws, "apply")
	if err != nil {
		return coldRun{}, err
	}
	if !strings.Contains(out, "applied:") {
		return coldRun{}, fmt.Errorf("cold apply: no %q in\n%s", "applied:", out)
	}
	f, err := writeDirFloor(ws, filepath.Join(dir, "floor"))
	return coldRun{d: d, floor: f, cpu: cpu, rssK: rss}, err
}

// timedCPU is timedRSS with the process's CPU time (user + system).
func timedCPU(home, bin string, args ...string) (time.Duration, int64, time.Duration, string, error) {
	d, ps, out, err := timedProcess(home, bin, args...)
	if err != nil {
		return d, 0, 0, "", err
	}
	return d, maxRSS(ps), ps.UserTime() + ps.SystemTime(), out, nil
}

func reportCold(w io.Writer, bins []string, n int, all [][]coldRun, load0, load1 string) {
	fmt.Fprintf(w, "%s, %s/%s, %d CPUs, cold apply of %d agents x %d skills, %d rounds alternated, load average %s at the start, %s at the end\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), n, scaleSkills, len(all[0]), load0, load1)
	fmt.Fprintln(w, "| actctl | cold apply (median) | directory-fsync floor (median) | ratio (median of pairs) | CPU (median) | peak memory (median) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for i, bin := range bins {
		var d, f, c, m, ratio []float64
		for _, r := range all[i] {
			d, f, c = append(d, r.d.Seconds()), append(f, r.floor.Seconds()), append(c, r.cpu.Seconds())
			m, ratio = append(m, float64(r.rssK)/1024), append(ratio, r.d.Seconds()/r.floor.Seconds())
		}
		fmt.Fprintf(w, "| %s | %.2f s | %.2f s | %.2fx | %.2f s | %.0f MiB (%.1f KB/agent) |\n",
			bin, medianOf(d), medianOf(f), medianOf(ratio), medianOf(c), medianOf(m), medianOf(m)*1024*1.024/float64(n))
	}
}

// medianOf is the median of xs, in any order.
func medianOf(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return median(s)
}
