// Command evalfloor is the eval floor of docs/benchmarks.md: a program that
// links only cuelang.org/go and loads, evaluates and exports (as JSON, to
// standard output) the workspace config in a directory with the same
// schema as actctl, given as a file (actctl embeds schema/actant.cue and
// loads it as an overlay beside the user's files, as this does). It is the
// least any CUE-based tool does with that config; an edited apply is
// measured against it.
//
//	evalfloor SCHEMA.cue DIR
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/load"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: evalfloor SCHEMA.cue DIR")
		os.Exit(2)
	}
	if err := export(os.Stdout, os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "evalfloor:", err)
		os.Exit(1)
	}
}

// export loads the package actant in dir with the schema file beside it
// (an overlay: nothing is written), evaluates it and writes its JSON to w.
func export(w io.Writer, schemaPath, dir string) error {
	schema, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	dir, err = filepath.Abs(dir)
	if err != nil {
		return err
	}
	overlay := map[string]load.Source{filepath.Join(dir, "actctl-schema.cue"): load.FromBytes(schema)}
	lc := &load.Config{Dir: dir, ModuleRoot: dir, Package: "actant", Overlay: overlay}
	insts := load.Instances([]string{"."}, lc)
	if len(insts) != 1 {
		return fmt.Errorf("load %s: %d instances", dir, len(insts))
	}
	if err := insts[0].Err; err != nil {
		return err
	}
	v := cuecontext.New().BuildInstance(insts[0])
	if err := v.Err(); err != nil {
		return err
	}
	b, err := v.MarshalJSON()
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
