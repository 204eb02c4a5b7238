//go:build unix

package acptestagent

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	acp "github.com/coder/acp-go-sdk"
	"golang.org/x/sys/unix"
)

func init() {
	// flood-unread N SIZE [FIFO]: says "streaming pid=P child=C" (C: a
	// `sleep` it started), then stops reading its stdin for good and
	// sends N requests of an unknown method "_flood/ping", each id padded
	// to SIZE bytes (the client's answer echoes it), without waiting for
	// their answers; then waits forever. Once its client's first answer
	// starts arriving on its stdin it writes one byte to FIFO (opened for
	// writing first, so it waits for the test to open it). With SIZE over
	// the capacity of a pipe (64 KiB), that answer is never written whole:
	// the client's writer is stuck from then on, and so is every write of
	// the client to it that waits for it (session/cancel included); only
	// a kill ends it.
	register("flood-unread", floodUnread)
}

func floodUnread(t *Turn) (acp.StopReason, error) {
	if len(t.Words) < 3 {
		t.Say("flood-unread: want N SIZE [FIFO]\n")
		return acp.StopReasonEndTurn, nil
	}
	n, _ := strconv.Atoi(t.Words[1])
	size, _ := strconv.Atoi(t.Words[2])
	child := exec.Command("sleep", "1000")
	if err := child.Start(); err != nil {
		t.Say("flood-unread error: " + err.Error() + "\n")
		return acp.StopReasonEndTurn, nil
	}
	t.Say(fmt.Sprintf("streaming pid=%d child=%d\n", os.Getpid(), child.Process.Pid))
	if len(t.Words) > 3 {
		sig, err := os.OpenFile(t.Words[3], os.O_WRONLY, 0)
		if err != nil {
			t.Say("flood-unread error: " + err.Error() + "\n")
			return acp.StopReasonEndTurn, nil
		}
		go func() {
			fds := []unix.PollFd{{Fd: 0, Events: unix.POLLIN}}
			for {
				if _, err := unix.Poll(fds, -1); err != unix.EINTR {
					break
				}
			}
			_, _ = sig.Write([]byte{1})
			sig.Close()
		}()
	}
	stdin.stopReading()
	pad := strings.Repeat("p", size)
	for i := 0; i < n; i++ {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":"flood-%d-%s","method":"_flood/ping","params":{"sessionId":%q}}`+"\n", i, pad, t.SID)
		if err := t.writeLine([]byte(line)); err != nil {
			break
		}
	}
	select {}
}
