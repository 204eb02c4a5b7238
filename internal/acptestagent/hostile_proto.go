package acptestagent

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// The hostile agent's protocol ops: an agent that ignores what its client
// advertised, floods it, or prints escape sequences at it.

func init() {
	// ignore-preset PATH: says "caps write=W terminal=T" (what the
	// client advertised in initialize), then calls fs/write_text_file
	// of PATH and terminal/create of `sh -c "echo term-ran"` whatever it
	// advertised; says "write: ok" or "write refused: <error>", and
	// "terminal: <output>" or "terminal refused: <error>".
	register("ignore-preset", ignorePreset)
}

func ignorePreset(t *Turn) (acp.StopReason, error) {
	t.a.mu.Lock()
	caps := t.a.caps
	t.a.mu.Unlock()
	t.Say(fmt.Sprintf("caps write=%v terminal=%v\n", caps.Fs.WriteTextFile, caps.Terminal))
	if len(t.Words) < 2 {
		t.Say("ignore-preset: want a path\n")
		return acp.StopReasonEndTurn, nil
	}
	c := t.Conn()
	if _, err := c.WriteTextFile(t.Ctx, acp.WriteTextFileRequest{SessionId: t.SID, Path: t.Words[1], Content: "written by an agent that ignores its preset\n"}); err != nil {
		t.Say("write refused: " + err.Error() + "\n")
	} else {
		t.Say("write: ok\n")
	}
	t.Say(runTerminal(t, "sh", "-c", "echo term-ran") + "\n")
	return acp.StopReasonEndTurn, nil
}

// runTerminal runs argv in a terminal to its end and returns
// "terminal: <output>" or "terminal refused: <error>".
func runTerminal(t *Turn, argv ...string) string {
	c := t.Conn()
	term, err := c.CreateTerminal(t.Ctx, acp.CreateTerminalRequest{SessionId: t.SID, Command: argv[0], Args: argv[1:]})
	if err != nil {
		return "terminal refused: " + err.Error()
	}
	defer c.ReleaseTerminal(t.Ctx, acp.ReleaseTerminalRequest{SessionId: t.SID, TerminalId: term.TerminalId})
	if _, err := c.WaitForTerminalExit(t.Ctx, acp.WaitForTerminalExitRequest{SessionId: t.SID, TerminalId: term.TerminalId}); err != nil {
		return "terminal refused: " + err.Error()
	}
	out, err := c.TerminalOutput(t.Ctx, acp.TerminalOutputRequest{SessionId: t.SID, TerminalId: term.TerminalId})
	if err != nil {
		return "terminal refused: " + err.Error()
	}
	return "terminal: " + strings.TrimSpace(out.Output)
}

func init() {
	// term-flood N: terminal/create of a command printing N bytes ("x"),
	// asking for an outputByteLimit of 2 GiB; waits for its exit and says
	// "term-flood: kept K truncated T" (K: the bytes of output the client
	// returned).
	register("term-flood", termFlood)
}

func termFlood(t *Turn) (acp.StopReason, error) {
	n := "0"
	if len(t.Words) > 1 {
		n = t.Words[1]
	}
	c := t.Conn()
	term, err := c.CreateTerminal(t.Ctx, acp.CreateTerminalRequest{SessionId: t.SID, Command: "sh",
		Args: []string{"-c", "head -c " + n + " /dev/zero | tr '\\0' x"}, OutputByteLimit: acp.Ptr(2 << 30)})
	if err != nil {
		t.Say("term-flood error: " + err.Error() + "\n")
		return acp.StopReasonEndTurn, nil
	}
	defer c.ReleaseTerminal(t.Ctx, acp.ReleaseTerminalRequest{SessionId: t.SID, TerminalId: term.TerminalId})
	if _, err := c.WaitForTerminalExit(t.Ctx, acp.WaitForTerminalExitRequest{SessionId: t.SID, TerminalId: term.TerminalId}); err != nil {
		t.Say("term-flood error: " + err.Error() + "\n")
		return acp.StopReasonEndTurn, nil
	}
	out, err := c.TerminalOutput(t.Ctx, acp.TerminalOutputRequest{SessionId: t.SID, TerminalId: term.TerminalId})
	if err != nil {
		t.Say("term-flood error: " + err.Error() + "\n")
		return acp.StopReasonEndTurn, nil
	}
	t.Say(fmt.Sprintf("term-flood: kept %d truncated %v\n", len(out.Output), out.Truncated))
	return acp.StopReasonEndTurn, nil
}

func init() {
	// oversize N: sends one session/update notification whose text is N
	// bytes ("x"), then says "oversize: sent" (if the client still
	// listens).
	register("oversize", oversize)
}

func oversize(t *Turn) (acp.StopReason, error) {
	n := 0
	if len(t.Words) > 1 {
		n, _ = strconv.Atoi(t.Words[1])
	}
	if err := t.writeLine(chunkLine(t.SID, strings.Repeat("x", n))); err != nil {
		t.Say("oversize error: " + err.Error() + "\n")
	}
	t.Say("oversize: sent\n")
	return acp.StopReasonEndTurn, nil
}

// chunkLine is a session/update notification of an agent_message_chunk
// of text, as one JSON-RPC line.
func chunkLine(sid acp.SessionId, text string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": acp.ClientMethodSessionUpdate,
		"params": acp.SessionNotification{SessionId: sid, Update: acp.UpdateAgentMessageText(text)}})
	return append(b, '\n')
}

// writeLine writes one whole line on the agent's stdout, between the
// SDK's own messages.
func (t *Turn) writeLine(line []byte) error {
	o := t.a.out
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err := o.w.Write(line)
	return err
}

// spoofTitle is a tool title that, printed raw, erases its line and asks
// a question of its own.
const spoofTitle = "read notes\x1b[2K\rallow read (read)? "

func init() {
	// spoof: text from the agent full of escape sequences and control
	// characters: a plan entry, a tool call of kind execute titled
	// spoofTitle with a permission request for it, a message chunk that
	// retitles the window and uses a C1 CSI and a bidi override; then
	// end_turn.
	register("spoof", spoof)
	// spoof-error: answers the prompt with an error whose message clears
	// the screen.
	register("spoof-error", func(t *Turn) (acp.StopReason, error) {
		return "", &acp.RequestError{Code: -32603, Message: "agent failed\x1b[2J\rforged"}
	})
}

func spoof(t *Turn) (acp.StopReason, error) {
	c := t.Conn()
	_ = c.SessionUpdate(t.Ctx, acp.SessionNotification{SessionId: t.SID, Update: acp.UpdatePlan(
		acp.PlanEntry{Content: "step\x1b[31m one\r\nallow all? ", Priority: acp.PlanEntryPriorityHigh, Status: acp.PlanEntryStatusPending})})
	id := acp.ToolCallId("spoof-1")
	_ = c.SessionUpdate(t.Ctx, acp.SessionNotification{SessionId: t.SID, Update: acp.StartToolCall(id, spoofTitle,
		acp.WithStartKind(acp.ToolKindExecute), acp.WithStartStatus(acp.ToolCallStatusPending))})
	_, _ = c.RequestPermission(t.Ctx, acp.RequestPermissionRequest{SessionId: t.SID,
		ToolCall: acp.ToolCallUpdate{ToolCallId: id, Title: acp.Ptr(spoofTitle), Kind: acp.Ptr(acp.ToolKindExecute)},
		Options: []acp.PermissionOption{{Kind: acp.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: "yes\x1b[8m"},
			{Kind: acp.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: "no"}}})
	t.Say("hello\x1b]0;pwned\x07 there \u009b31m \u202eexe.txt\n")
	return acp.StopReasonEndTurn, nil
}

func init() {
	// term-many N: terminal/create of `true` N times without releasing
	// any; says "term-many: created C, then: <error>" (or "none refused").
	register("term-many", func(t *Turn) (acp.StopReason, error) {
		n := 0
		if len(t.Words) > 1 {
			n, _ = strconv.Atoi(t.Words[1])
		}
		created, refusal := 0, "none refused"
		for ; created < n; created++ {
			if _, err := t.Conn().CreateTerminal(t.Ctx, acp.CreateTerminalRequest{SessionId: t.SID, Command: "true"}); err != nil {
				refusal = err.Error()
				break
			}
		}
		t.Say(fmt.Sprintf("term-many: created %d, then: %s\n", created, refusal))
		return acp.StopReasonEndTurn, nil
	})
}
