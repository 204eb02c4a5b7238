package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/importer"
	"github.com/actctl/actctl/internal/termsafe"
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
	importNote(g, dir)
	if g.JSON() {
		return g.PrintJSON(initJSON{Wrote: path, Next: initNext})
	}
	fmt.Fprintf(g.Stdout, "wrote %s\nnext: %s\n", path, initNext)
	return nil
}

// importNote tells, on stderr, that dir already has agent files, which
// `actctl import` would take into actant.cue as they are (docs/import.md).
func importNote(g *globals, dir string) {
	found := importer.Present(dir)
	if len(found) == 0 {
		return
	}
	names := strings.Join(found, ", ")
	if len(found) > 3 {
		names = fmt.Sprintf("%s and %d more", strings.Join(found[:3], ", "), len(found)-3)
	}
	fmt.Fprintf(g.Stderr, "actctl: note: this directory already has agent files (%s): `actctl import` writes an actant.cue from them instead, which apply adopts as they are; to use it, remove the starter actant.cue and run actctl import\n", termsafe.Line(names))
}

// initNext is what init suggests running next.
const initNext = "actctl validate && actctl apply --dry-run"

// initJSON is init's -o json output (docs/json.md).
type initJSON struct {
	Wrote string `json:"wrote"`
	Next  string `json:"next"`
}
