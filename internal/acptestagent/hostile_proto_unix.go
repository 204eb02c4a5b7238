//go:build unix

package acptestagent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	acp "github.com/coder/acp-go-sdk"
)

func init() {
	// note-flood N SIZE FIFO: sends N session/update notifications, the
	// text of the i-th "%05d " i, SIZE "x" and a newline, as fast as its
	// stdout takes them. Each time a write would block (the client is not
	// reading) it writes one byte to the FIFO (opened for writing first,
	// so it waits for the test to open it), then waits; it closes the
	// FIFO once all are sent and says "note-flood: sent N". A test reads
	// actctl's stdout only when told, so actctl's stdout is slow exactly
	// as long as the agent can go on without actctl reading.
	register("note-flood", noteFlood)
	// request-flood N: starts a terminal that runs until the agent
	// releases it, sends N terminal/wait_for_exit requests for it without
	// waiting for their answers, then one terminal/output for it (the
	// probe); then releases the terminal and says "probe: ok" or "probe:
	// <error>".
	register("request-flood", requestFlood)
}

func noteFlood(t *Turn) (acp.StopReason, error) {
	if len(t.Words) < 4 {
		t.Say("note-flood: want N SIZE FIFO\n")
		return acp.StopReasonEndTurn, nil
	}
	n, _ := strconv.Atoi(t.Words[1])
	size, _ := strconv.Atoi(t.Words[2])
	sig, err := os.OpenFile(t.Words[3], os.O_WRONLY, 0)
	if err != nil {
		t.Say("note-flood error: " + err.Error() + "\n")
		return acp.StopReasonEndTurn, nil
	}
	pad := strings.Repeat("x", size)
	for i := 0; i < n; i++ {
		line := chunkLine(t.SID, fmt.Sprintf("%05d %s\n", i, pad))
		if err := t.writeLineTold(line, func() { _, _ = sig.Write([]byte{1}) }); err != nil {
			sig.Close()
			return acp.StopReasonEndTurn, err
		}
	}
	sig.Close()
	t.Say(fmt.Sprintf("note-flood: sent %d\n", n))
	return acp.StopReasonEndTurn, nil
}

// writeLineTold is writeLine that calls blocked first when the write
// would block.
func (t *Turn) writeLineTold(line []byte, blocked func()) error {
	o := t.a.out
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := syscall.SetNonblock(syscall.Stdout, true); err != nil {
		return err
	}
	n, err := syscall.Write(syscall.Stdout, line)
	if err := syscall.SetNonblock(syscall.Stdout, false); err != nil {
		return err
	}
	n = max(n, 0)
	if err == nil && n == len(line) {
		return nil
	}
	if err != nil && !errors.Is(err, syscall.EAGAIN) {
		return err
	}
	blocked()
	_, err = o.w.Write(line[n:])
	return err
}

func requestFlood(t *Turn) (acp.StopReason, error) {
	n := 0
	if len(t.Words) > 1 {
		n, _ = strconv.Atoi(t.Words[1])
	}
	dir, err := os.MkdirTemp("", "request-flood-")
	if err != nil {
		return acp.StopReasonEndTurn, err
	}
	defer os.RemoveAll(dir)
	release := filepath.Join(dir, "release")
	if err := syscall.Mkfifo(release, 0o600); err != nil {
		return acp.StopReasonEndTurn, err
	}
	c := t.Conn()
	term, err := c.CreateTerminal(t.Ctx, acp.CreateTerminalRequest{SessionId: t.SID, Command: "sh", Args: []string{"-c", "read x < " + release}})
	if err != nil {
		t.Say("request-flood error: " + err.Error() + "\n")
		return acp.StopReasonEndTurn, nil
	}
	for i := 0; i < n; i++ {
		line := fmt.Sprintf(`{"jsonrpc":"2.0","id":"flood-%d","method":"terminal/wait_for_exit","params":{"sessionId":%q,"terminalId":%q}}`+"\n", i, t.SID, term.TerminalId)
		if err := t.writeLine([]byte(line)); err != nil {
			return acp.StopReasonEndTurn, err
		}
	}
	_, probe := c.TerminalOutput(t.Ctx, acp.TerminalOutputRequest{SessionId: t.SID, TerminalId: term.TerminalId})
	if err := os.WriteFile(release, []byte("\n"), 0o600); err != nil {
		return acp.StopReasonEndTurn, err
	}
	if probe != nil {
		t.Say("probe: " + probe.Error() + "\n")
	} else {
		t.Say("probe: ok\n")
	}
	return acp.StopReasonEndTurn, nil
}
