//go:build unix

package hub

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/schema"
)

// BenchmarkEnsureSatisfied measures a sync whose lock and cache are
// satisfied (the everyday `apply`): it must make no network call, which the
// benchmark checks with the network hook.
func BenchmarkEnsureSatisfied(b *testing.B) {
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprintf("components=%d", n), func(b *testing.B) {
			dir := benchRepo(b, n)
			_, _, load := workspace(b, fmt.Sprintf("hub: h: {url: %q, ref: branch: \"main\"}\n", "file://"+dir))
			ensure(b, load(), Options{})
			cfgs := make([]*schema.Config, b.N)
			for i := range cfgs {
				cfgs[i] = load()
			}
			calls := countNet(b)
			l0, r0 := indexCounts()
			b.ResetTimer()
			done := reportCPU(b)
			for i := 0; i < b.N; i++ {
				if _, err := Ensure(context.Background(), cfgs[i], Options{}); err != nil {
					b.Fatal(err)
				}
			}
			done()
			b.StopTimer()
			if calls.Load() != 0 {
				b.Fatalf("satisfied lock made %d network calls", calls.Load())
			}
			if l, r := indexCounts(); l-l0 != b.N || r != r0 {
				b.Fatalf("satisfied lock: %d index loads, %d tree reads for %d syncs", l-l0, r-r0, b.N)
			}
		})
	}
}

// BenchmarkSatisfiedParts splits the satisfied sync of the 1014-component
// hub: loading the tree's index, reading the tree instead (what the
// index saves), and merging the components into the config.
func BenchmarkSatisfiedParts(b *testing.B) {
	dir := benchRepo(b, 1000)
	_, home, load := workspace(b, fmt.Sprintf("hub: h: {url: %q, ref: branch: \"main\"}\n", "file://"+dir))
	ensure(b, load(), Options{})
	ms, _ := filepath.Glob(filepath.Join(home, "hub", "*", "trees", "*.json"))
	if len(ms) != 1 {
		b.Fatalf("trees %v", ms)
	}
	tree := strings.TrimSuffix(ms[0], ".json")
	m, _ := readMarker(tree)
	c, err := loadIndex(tree, m)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("load-index", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			if _, err := loadIndex(tree, m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read-tree", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			if _, err := ReadTree(os.DirFS(tree), tree); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("merge", func(b *testing.B) {
		cfgs := make([]*schema.Config, b.N)
		for i := range cfgs {
			cfgs[i] = load()
		}
		b.ResetTimer()
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			Merge(cfgs[i], "h", c)
		}
	})
	// The part of merge spent recording positions (schema.Config.SetPos
	// parses every path it is given).
	b.Run("merge-setpos", func(b *testing.B) {
		cfgs := make([]*schema.Config, b.N)
		for i := range cfgs {
			cfgs[i] = load()
		}
		b.ResetTimer()
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			for _, in := range c.Info {
				if in.Kind != KindPreset { // Merge does not merge presets
					cfgs[i].SetPos(schema.Path(in.Kind+"s", "h@"+in.Name), in.Pos)
				}
			}
		}
	})
}

// reportCPU starts measuring CPU time; the function it returns reports it
// per operation as cpu-ns/op.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() { b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op") }
}

// cpuTime is the CPU time (user and system) used by the process so far:
// on a shared machine it varies less than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkFetchCold measures a first sync (resolve, shallow fetch,
// extract, read, lock) of a hub with 1000 extra skills over file://, next
// to `git clone --depth 1` of the same repository.
func BenchmarkFetchCold(b *testing.B) {
	dir := benchRepo(b, 1000)
	url := "file://" + dir
	b.Run("actctl", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			_, _, load := workspace(b, fmt.Sprintf("hub: h: {url: %q, ref: branch: \"main\"}\n", url))
			cfg := load()
			b.StartTimer()
			if _, err := Ensure(context.Background(), cfg, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("git-clone-depth1", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			dst := filepath.Join(b.TempDir(), "c")
			b.StartTimer()
			cmd := exec.Command("git", "clone", "-q", "--depth", "1", url, dst)
			cmd.Env = gitEnv(b)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
		}
	})
}

// benchRepo is the test fixture plus n generated skills (half JSON, half
// SKILL.md directories), committed on main.
func benchRepo(b testing.TB, n int) string {
	needGit(b)
	dir := filepath.Join(b.TempDir(), "hub")
	copyTree(b, "testdata/actant-hub", dir)
	for i := 0; i < n; i++ {
		var p, body string
		if i%2 == 0 {
			p = fmt.Sprintf("skills/gen-%04d.json", i)
			body = fmt.Sprintf(`{"name":"gen-%04d","version":"1.0.0","description":"generated","content":"# Skill %d\n\nDo the thing."}`, i, i)
		} else {
			p = fmt.Sprintf("skills/gen-%04d/SKILL.md", i)
			body = fmt.Sprintf("---\nname: gen-%04d\ndescription: generated\n---\n# Skill %d\n", i, i)
		}
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	runGit(b, dir, "init", "-q", "-b", "main")
	runGit(b, dir, "add", "-A")
	runGit(b, dir, "commit", "-q", "-m", "bench")
	return dir
}
