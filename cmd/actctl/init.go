package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/schema"
)

func init() {
	register(&cli.Command{
		Name:         "init",
		Usage:        "write a commented actant.cue in the current directory (or -C DIR)",
		OnUsageError: usageErrors,
		Action:       initCmd,
	})
}

func initCmd(c *cli.Context) error {
	g := globalsOf(c)
	dir := g.Dir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, schema.FileName)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("init: %s already exists; not overwriting it", path)
	}
	if err != nil {
		return fmt.Errorf("init: %w", err)
	}
	if _, err := f.Write(schema.Starter); err != nil {
		f.Close()
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("init: write %s: %w", path, err)
	}
	if g.JSON() {
		return g.PrintJSON(initJSON{Wrote: path, Next: initNext})
	}
	fmt.Fprintf(g.Stdout, "wrote %s\nnext: %s\n", path, initNext)
	return nil
}

// initNext is what init suggests running next.
const initNext = "actctl validate && actctl apply --dry-run"

// initJSON is init's -o json output (docs/json.md).
type initJSON struct {
	Wrote string `json:"wrote"`
	Next  string `json:"next"`
}
