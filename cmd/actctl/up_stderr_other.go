//go:build !unix

package main

// guardStderr: elsewhere a broken stderr pipe raises no signal.
func (u *upRun) guardStderr(g *globals, stop func()) {}
