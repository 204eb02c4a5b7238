//go:build !unix

package main

import "os/exec"

// detach: without sessions, a started process already outlives actctl
// once it is released.
func detach(*exec.Cmd) {}
