package main

import (
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/tasklog"
)

// Messages of a task as the agent sent them (one JSON-RPC line each).
const (
	msgChunk1     = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Looking at "}}}}`
	msgChunk2     = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"the issues."}}}}`
	msgThought    = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hmm"}}}}`
	msgToolCall   = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"c1","title":"Read README.md","kind":"read","status":"pending"}}}`
	msgToolDone   = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"c1","status":"completed"}}}`
	msgPermission = `{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"c2","title":"Run go test","kind":"execute"},"options":[{"optionId":"allow","name":"Allow","kind":"allow_once"}]}}`
	msgReadFile   = `{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s1","path":"/x"}}`
	msgEnd        = `{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`
	msgFailed     = `{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"Internal error"}}`
	msgPlugin     = `{"jsonrpc":"2.0","method":"_actctl/plugin","params":{"plugin":"to-user","direction":"outbound","durationMs":120,"inBytes":11,"outBytes":9,"changed":true,"attempts":2,"outcome":"passed","error":"timed out after 1m0s"}}`
)

func TestTaskRenderer(t *testing.T) {
	for _, tc := range []struct {
		name string
		msgs []string
		want string
	}{
		{"text joined", []string{msgChunk1, msgChunk2, msgEnd}, "Looking at the issues.\nstop: end_turn\n"},
		{"tool lines break the text", []string{msgChunk1, msgToolCall, msgThought, msgToolDone, msgChunk2},
			"Looking at \ntool Read README.md (read): pending\ntool Read README.md (read): completed\nthe issues.\n"},
		{"permission and other requests", []string{msgPermission, msgReadFile, "not json", msgFailed},
			"permission? Run go test (execute)\nerror: Internal error\n"},
		{"nothing to show", []string{msgThought, msgReadFile}, ""},
		{"a plugin's step", []string{msgChunk1, msgPlugin},
			"Looking at \nplugin to-user (outbound): 11 -> 9 bytes in 120 ms, 2 attempts, failed (the text went on unchanged): timed out after 1m0s\n"},
	} {
		var out strings.Builder
		r := newTaskRenderer(&out)
		for _, m := range tc.msgs {
			r.line([]byte(m))
		}
		r.end()
		if out.String() != tc.want {
			t.Errorf("%s:\n%q\nwant\n%q", tc.name, out.String(), tc.want)
		}
	}
}

func TestSummaryLine(t *testing.T) {
	at := time.Date(2026, 11, 22, 9, 0, 1, 500, time.UTC)
	for _, tc := range []struct {
		s    tasklog.Summary
		want string
	}{
		{tasklog.Summary{Time: at, Task: 3, Kind: "heartbeat", Source: "heartbeat", StopReason: "end_turn", DurationMs: 61234, Prompt: "Read .heartbeat\nand more"},
			"2026-11-22 09:00:01  #3    heartbeat        end_turn       1m1.2s  Read .heartbeat"},
		{tasklog.Summary{Time: at, Task: 12, Kind: "cron", Source: "cron[1]", StopReason: "cancelled", Error: "agent crashed\nstderr: x", DurationMs: 40, Prompt: "Post the standup"},
			"2026-11-22 09:00:01  #12   cron(cron[1])    error: agent crashed     40ms  Post the standup"},
	} {
		if got := summaryLine(tc.s, time.UTC); got != tc.want {
			t.Errorf("summaryLine:\n%q\nwant\n%q", got, tc.want)
		}
	}
}
