//go:build !unix

package main

import "os/exec"

// detach does nothing where there are no sessions: the started program is
// still not tied to our stdio, nor waited for.
func detach(*exec.Cmd) {}
