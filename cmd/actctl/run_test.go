package main

import (
	"context"
	"errors"
	"io"
	"testing"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
)

// TestTurnCode is the table of run's exit codes (docs/run.md).
func TestTurnCode(t *testing.T) {
	timeout := exitStatus(exitTimeout, "timed out")
	sigint := exitStatus(exitSIGINT, "interrupted")
	res := func(stop acp.StopReason, allowed, denied int) acpclient.Result {
		return acpclient.Result{StopReason: stop, Permissions: acpclient.Permissions{Allowed: allowed, Denied: denied}}
	}
	for _, tc := range []struct {
		name      string
		res       acpclient.Result
		err       error
		cause     error
		cancelled bool
		want      int
	}{
		{"end_turn", res("end_turn", 0, 0), nil, nil, false, 0},
		{"end_turn, some allowed", res("end_turn", 1, 3), nil, nil, false, 0},
		{"end_turn, all denied", res("end_turn", 0, 2), nil, nil, false, 5},
		{"refusal", res("refusal", 0, 0), nil, nil, false, 3},
		{"refusal after denials", res("refusal", 0, 1), nil, nil, false, 3},
		{"max_tokens", res("max_tokens", 0, 0), nil, nil, false, 4},
		{"max_turn_requests", res("max_turn_requests", 0, 0), nil, nil, false, 4},
		{"cancelled by the agent", res("cancelled", 0, 0), nil, nil, false, 1},
		{"unknown stop reason", res("whatever", 0, 0), nil, nil, false, 1},
		{"crash", res("", 0, 0), errors.New("backend exited"), nil, false, 1},
		{"timeout", res("cancelled", 0, 0), timeout, timeout, true, 124},
		{"SIGINT", res("cancelled", 0, 2), sigint, sigint, true, 130},
		{"SIGINT, killed after grace", res("", 0, 0), sigint, sigint, true, 130},
	} {
		if got, _ := turnCode(tc.res, tc.err, tc.cause, tc.cancelled); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestAsker: chat's question at a terminal: y, n, always (remembered for
// the tool kind), anything else asks again; a cancelled turn cancels it.
func TestAsker(t *testing.T) {
	lines := make(chan string, 10)
	a := &asker{lines: lines, w: io.Discard, always: map[acp.ToolKind]bool{}}
	options := []acp.PermissionOption{
		{Kind: "allow_once", OptionId: "once"}, {Kind: "allow_always", OptionId: "always"}, {Kind: "reject_once", OptionId: "no"},
	}
	edit := acpclient.ToolCall{Kind: "edit"}
	for _, tc := range []struct {
		input []string
		call  acpclient.ToolCall
		want  string
	}{
		{[]string{"y"}, edit, "once"},
		{[]string{"N"}, edit, "no"},
		{[]string{"maybe", "yes"}, edit, "once"},
		{[]string{"always"}, edit, "always"},
		{nil, edit, "always"}, // remembered: nothing read
		{[]string{"n"}, acpclient.ToolCall{Kind: "execute"}, "no"},
	} {
		for _, l := range tc.input {
			lines <- l
		}
		d, err := a.ask(context.Background(), tc.call, options)
		if err != nil || d.OptionID != tc.want {
			t.Errorf("%v: %+v %v, want %s", tc.input, d, err, tc.want)
		}
		if len(lines) != 0 {
			t.Errorf("%v: %d line(s) left unread", tc.input, len(lines))
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.ask(ctx, acpclient.ToolCall{Kind: "delete"}, options); err == nil {
		t.Errorf("cancelled ask answered")
	}
}
