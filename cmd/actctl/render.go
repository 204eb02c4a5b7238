package main

import (
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// checkRender renders every agent without writing, to report what only
// rendering can find (two agents owning one file, a hostile path). Render
// warnings are printed by validate's caller through the diagnostics' own
// format; only errors fail validation.
func checkRender(cfg *schema.Config) error {
	_, diags := materialize.RenderAll(cfg, materialize.Options{})
	if errs := diags.Errors(); len(errs) > 0 {
		return errs
	}
	return nil
}
