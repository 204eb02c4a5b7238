//go:build unix

package acptestagent

import (
	"os/signal"
	"syscall"

	acp "github.com/coder/acp-go-sdk"
)

func init() {
	// deaf-to-term: from now on the agent's process ignores SIGTERM,
	// SIGINT and SIGHUP (a backend that does not stop when asked: only
	// SIGKILL ends it, so a stop waits its whole grace); says "deaf to
	// SIGTERM".
	register("deaf-to-term", deafToTerm)
}

func deafToTerm(t *Turn) (acp.StopReason, error) {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	t.Say("deaf to SIGTERM\n")
	return acp.StopReasonEndTurn, nil
}
