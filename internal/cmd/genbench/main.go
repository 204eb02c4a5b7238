// Command genbench writes the benchmark workspace (schema's BenchmarkLoad
// config, internal/benchconfig) and actctl's CUE schema into a directory,
// so that `cue export` can be timed on exactly the input actctl loads
// (docs/benchmarks.md):
//
//	go run ./internal/cmd/genbench -agents 1000 -dir /tmp/cuebench
//
// With -skills and -schema=false it writes the workspaces of the
// 10,000-agent measurements (docs/benchmarks.md, "10,000 agents"), which
// actctl runs in:
//
//	go run ./internal/cmd/genbench -agents 10000 -skills 2 -schema=false -dir /var/tmp/team10k
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/actctl/actctl/internal/benchconfig"
	"github.com/actctl/actctl/schema"
)

func main() {
	agents := flag.Int("agents", 1000, "number of agents")
	dir := flag.String("dir", "", "directory to write actant.cue and schema.cue into (created)")
	skills := flag.Int("skills", 20, "skills in the agents' shared template")
	withSchema := flag.Bool("schema", true, "write schema.cue too (for cue export; actctl must not find it in its workspace)")
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 || *agents < 0 || *skills < 0 {
		fmt.Fprintln(os.Stderr, "usage: genbench [-agents N] [-skills K] [-schema=false] -dir DIR")
		os.Exit(2)
	}
	if err := write(*dir, *agents, *skills, *withSchema); err != nil {
		fmt.Fprintf(os.Stderr, "genbench: %v\n", err)
		os.Exit(1)
	}
}

func write(dir string, agents, skills int, withSchema bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := benchconfig.WriteFilesSkills(dir, agents, skills); err != nil {
		return err
	}
	if !withSchema {
		return nil
	}
	return os.WriteFile(filepath.Join(dir, "schema.cue"), schema.Source, 0o644)
}
