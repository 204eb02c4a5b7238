package reconcile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/par"
	"github.com/actctl/actctl/schema"
)

// Benchmarks of the targets in docs/benchmarks.md (run: see
// docs/benchmarks-reconcile.md).
// Each agent is an instance (archetype repo, full materialization) with its
// own template and 20 skills of its own, so that editing one skill feeds
// exactly one file.

const benchSkills = 20

// benchConfig loads the built-in backends and archetypes from a minimal
// actant.cue and adds n agents in memory (a 1000-agent CUE file would make
// the setup, not the apply, the slow part).
func benchConfig(b *testing.B, n int) *schema.Config {
	b.Helper()
	root, home := b.TempDir(), b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "actant.cue"), []byte("package actant\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, err := schema.LoadDir(root, home)
	if err != nil {
		b.Fatal(err)
	}
	if cfg.Skills == nil {
		cfg.Skills = map[string]schema.Skill{}
	}
	if cfg.Templates == nil {
		cfg.Templates = map[string]schema.Template{}
	}
	if cfg.Agents == nil {
		cfg.Agents = map[string]schema.Agent{}
	}
	if cfg.Prompts == nil {
		cfg.Prompts = map[string]schema.Prompt{}
	}
	cfg.Prompts["role"] = schema.Prompt{Content: "You maintain {{project}}. Keep changes small and tested."}
	body := "# Skill\n\n" + string(make([]byte, 0)) + "Steps:\n1. Read the code.\n2. Write the test.\n3. Make it pass.\n"
	for i := 0; i < n; i++ {
		t := fmt.Sprintf("t%04d", i)
		var skills []string
		for s := 0; s < benchSkills; s++ {
			name := fmt.Sprintf("%s-s%02d", t, s)
			cfg.Skills[name] = schema.Skill{Description: "Skill " + name, Content: body}
			skills = append(skills, name)
		}
		cfg.Templates[t] = schema.Template{Version: "1.0.0", Description: "bench", Backend: "claude-code",
			Archetype: schema.ArchRepo, Skills: skills, Prompts: []string{"role"},
			Vars: map[string]string{"project": t}, Permissions: schema.Permissions{Preset: schema.PresetStandard}}
		cfg.Agents[fmt.Sprintf("a%04d", i)] = schema.Agent{Template: t}
	}
	return cfg
}

// wipe removes everything apply wrote, so the next apply is cold.
func wipe(b *testing.B, cfg *schema.Config) {
	b.Helper()
	for _, d := range []string{filepath.Join(cfg.Home, "instances"), filepath.Join(cfg.Root, MetaDir)} {
		if err := os.RemoveAll(d); err != nil {
			b.Fatal(err)
		}
	}
}

var benchSizes = []int{1, 100, 1000}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

func sizes(b *testing.B) []int {
	if testing.Short() {
		return benchSizes[:2]
	}
	return benchSizes
}

func BenchmarkApplyCold(b *testing.B) {
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			cfg := benchConfig(b, n)
			files := 0
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				wipe(b, cfg)
				b.StartTimer()
				res, err := Apply(context.Background(), cfg, Options{})
				if err != nil {
					b.Fatal(err)
				}
				files = res.Counts.Created
			}
			b.ReportMetric(float64(files), "files")
		})
	}
}

func BenchmarkApplyNoop(b *testing.B) {
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			cfg := benchConfig(b, n)
			if _, err := Apply(context.Background(), cfg, Options{}); err != nil {
				b.Fatal(err)
			}
			// The metadata files are not touched either (the workspace
			// files are covered by Counts and by the e2e test).
			meta := []string{metaPath(cfg.Root, StateFile), metaPath(cfg.Root, LockFile)}
			before := map[string]os.FileInfo{}
			for _, p := range meta {
				fi, err := os.Stat(p)
				if err != nil {
					b.Fatal(err)
				}
				before[p] = fi
			}
			b.ResetTimer()
			applyNoops(b, cfg)
			b.StopTimer()
			for _, p := range meta {
				fi, err := os.Stat(p)
				if err != nil || !os.SameFile(fi, before[p]) || !fi.ModTime().Equal(before[p].ModTime()) {
					b.Fatalf("no-op apply touched %s", p)
				}
			}
		})
	}
}

func BenchmarkApplyEditSkill(b *testing.B) {
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			cfg := benchConfig(b, n)
			if _, err := Apply(context.Background(), cfg, Options{}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				s := cfg.Skills["t0000-s00"]
				s.Content = fmt.Sprintf("# Skill\n\nedit %d\n", i)
				cfg.Skills["t0000-s00"] = s
				res, err := Apply(context.Background(), cfg, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if res.Counts.Changed != 1 {
					b.Fatalf("editing one skill must write exactly its file, wrote %+v", res.Items)
				}
			}
			reportCPU(b, cpu)
		})
	}
}

// BenchmarkWriteFloor is the reference of docs/benchmarks.md: the same files
// written by a minimal durable writer — directories first, then in parallel a
// temp file, fsync, rename — with nothing else (no reading, planning or
// state).
func BenchmarkWriteFloor(b *testing.B) {
	for _, n := range sizes(b) {
		b.Run(fmt.Sprintf("agents=%d", n), func(b *testing.B) {
			cfg := benchConfig(b, n)
			if _, err := Apply(context.Background(), cfg, Options{}); err != nil {
				b.Fatal(err)
			}
			// The files apply wrote (state.json included: it is part of
			// the job).
			type file struct {
				path string
				data []byte
			}
			var files []file
			var dirs []string
			for _, top := range []string{filepath.Join(cfg.Home, "instances"), filepath.Join(cfg.Root, MetaDir)} {
				filepath.Walk(top, func(p string, fi os.FileInfo, err error) error {
					if err != nil {
						return err
					}
					if fi.IsDir() {
						dirs = append(dirs, p)
						return nil
					}
					if fi.Name() == LockFile {
						return nil
					}
					data, err := os.ReadFile(p)
					files = append(files, file{p, data})
					return err
				})
			}
			sort.Strings(dirs)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				wipe(b, cfg)
				b.StartTimer()
				for _, d := range dirs {
					if err := os.Mkdir(d, 0o755); err != nil {
						b.Fatal(err)
					}
				}
				errs := make([]error, len(files))
				par.For(len(files), par.IO(), func(j int) {
					f := files[j]
					tmp := f.path + ".tmp"
					h, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
					if err == nil {
						_, err = h.Write(f.data)
						if err == nil {
							err = h.Sync()
						}
						if cerr := h.Close(); err == nil {
							err = cerr
						}
					}
					if err == nil {
						err = os.Rename(tmp, f.path)
					}
					errs[j] = err
				})
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(files)), "files")
		})
	}
}

// applyNoops applies cfg b.N times, timed, failing on any write, and
// reports the CPU time per apply.
func applyNoops(b *testing.B, cfg *schema.Config) {
	b.Helper()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		res, err := Apply(context.Background(), cfg, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if res.Counts.Changed != 0 || res.StateWritten {
			b.Fatalf("no-op apply wrote: %+v", res.Counts)
		}
	}
	reportCPU(b, cpu)
}
