package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/tasklog"
)

// TestChatQuestionEscaped: chat's permission question shows the agent's
// title and kind with control characters escaped, so a title cannot
// erase the question and ask another. (issue #20 item 10)
func TestChatQuestionEscaped(t *testing.T) {
	lines := make(chan string, 1)
	lines <- "n"
	var out bytes.Buffer
	a := &asker{lines: lines, w: &out, always: map[acp.ToolKind]bool{}}
	call := acpclient.ToolCall{ID: "c1", Title: "read notes\x1b[2K\rallow read", Kind: "execute\x1b[8m"}
	if _, err := a.ask(context.Background(), call, []acp.PermissionOption{{Kind: acp.PermissionOptionKindRejectOnce, OptionId: "no"}}); err != nil {
		t.Fatal(err)
	}
	if want := `allow read notes\x1b[2K\rallow read (execute\x1b[8m)? [y/n/always] `; out.String() != want {
		t.Errorf("asked %q, want %q", out.String(), want)
	}
}

// TestLogsEscaped: actctl logs renders a task's messages and the task
// lines with what the agent wrote escaped. (issue #20 item 10)
func TestLogsEscaped(t *testing.T) {
	var out bytes.Buffer
	r := newTaskRenderer(&out)
	for _, l := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi\u001b]0;x\u0007\n"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"a\u001b[2K\rb","kind":"read"}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"bad\u001b[2J"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn\u001b[1A"}}`,
	} {
		r.line([]byte(l))
	}
	r.end()
	want := "hi\\x1b]0;x\\x07\ntool a\\x1b[2K\\rb (read): pending\nerror: bad\\x1b[2J\nstop: end_turn\\x1b[1A\n"
	if out.String() != want {
		t.Errorf("rendered %q, want %q", out.String(), want)
	}
	s := tasklog.Summary{Time: time.Date(2026, 11, 22, 9, 0, 1, 0, time.UTC), Task: 1, Kind: "manual", Error: "crashed\x1b[2J", Prompt: "go\rfake"}
	if got := summaryLine(s, time.UTC); strings.ContainsAny(got, "\x1b\r") || !strings.Contains(got, `error: crashed\x1b[2J`) {
		t.Errorf("task line %q", got)
	}
}
