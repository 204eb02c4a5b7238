package proxy

import (
	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/schema"
)

// Launch is how to start an agent's backend (see launch.Launch).
type Launch = launch.Launch

// Resolve computes how to start the agent's backend in mode ("acp" or
// "open") on this OS (see launch.Resolve).
func Resolve(r *schema.Resolved, mode string) (Launch, error) { return launch.Resolve(r, mode) }

// Signals are the signals on which the CLI should cancel Run's context
// (SIGINT, SIGTERM and SIGHUP kill the backend's group).
var Signals = launch.Signals

// PIDAlive reports whether a process with this pid exists.
func PIDAlive(pid int) bool { return launch.PIDAlive(pid) }
