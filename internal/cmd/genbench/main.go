// Command genbench writes the benchmark workspace (schema's BenchmarkLoad
// config, internal/benchconfig) and actctl's CUE schema into a directory,
// so that `cue export` can be timed on exactly the input actctl loads
// (docs/benchmarks.md):
//
//	go run ./internal/cmd/genbench -agents 1000 -dir /tmp/cuebench
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
	flag.Parse()
	if *dir == "" || flag.NArg() > 0 || *agents < 0 {
		fmt.Fprintln(os.Stderr, "usage: genbench [-agents N] -dir DIR")
		os.Exit(2)
	}
	if err := write(*dir, *agents); err != nil {
		fmt.Fprintf(os.Stderr, "genbench: %v\n", err)
		os.Exit(1)
	}
}

func write(dir string, agents int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, content := range benchconfig.Files(agents) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, "schema.cue"), schema.Source, 0o644)
}
