// Package upserve is what `actctl up` composes around package up
// (docs/runtime.md, "How up fits together"): which agents it runs and
// with what up.Spec, cycle after cycle of the watch loop; the one hooks
// bus and the prompt hooks of agents up does not hold; the --webhooks
// listener; the events actctl:start and actctl:stop; the dashboard's
// Source; the control socket; and the order of the stop.
//
// The command line keeps its flags, signals, log and exit codes: it
// gives New its log and the parts of the other commands up shows
// (describe, get hooks, a run turn), and Run the watch loop that loads
// and applies the workspace.
package upserve
