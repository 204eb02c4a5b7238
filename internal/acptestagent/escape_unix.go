//go:build unix

package acptestagent

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	acp "github.com/coder/acp-go-sdk"
)

func init() {
	// escape: an agent whose child leaves its process group (setsid, as
	// a daemonizing tool does), so that no group kill reaches it. It
	// says "escaped pid=P child=C" (C: a `sleep` in a session of its
	// own) and waits for session/cancel ("cancelled"). Only the session
	// mark in C's environment (launch.MarkVar) finds C.
	register("escape", func(t *Turn) (acp.StopReason, error) {
		child := exec.Command("sleep", "1000")
		child.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := child.Start(); err != nil {
			t.Say("escape error: " + err.Error() + "\n")
			return acp.StopReasonEndTurn, nil
		}
		go func() { _ = child.Wait() }() // reaped while the agent lives
		t.Say(fmt.Sprintf("escaped pid=%d child=%d\n", os.Getpid(), child.Process.Pid))
		<-t.TCtx.Done()
		t.Say("cancelled\n")
		return acp.StopReasonCancelled, nil
	})
}
