package main

import (
	"fmt"

	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// checkRender renders every agent without writing, to report what only
// rendering can find (two agents owning one file, a hostile path, a
// permission preset a backend cannot express). Warnings are printed; only
// errors fail validation.
func checkRender(g *globals, cfg *schema.Config) error {
	_, diags := materialize.RenderAll(cfg, materialize.Options{})
	for _, w := range diags.Warnings() {
		fmt.Fprintf(g.Stderr, "actctl: %s\n", w)
	}
	if errs := diags.Errors(); len(errs) > 0 {
		return errs
	}
	return nil
}
