//go:build !unix

package main

import "github.com/actctl/actctl/upserve"

// guardStderr: elsewhere a broken stderr pipe raises no signal.
func guardStderr(g *globals, s *upserve.Server, stop func()) {}
