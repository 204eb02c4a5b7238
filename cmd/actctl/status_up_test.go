package main

import (
	"testing"
	"time"

	"github.com/actctl/actctl/supervise"
	"github.com/actctl/actctl/up"
)

// TestUpDetails: the PROCESS column shows a busy agent's current task
// (id, kind and source, elapsed, stalled) and queue length, and a
// crashed or backing-off agent's last error by its first line only (the
// stderr tail stays in its log) and the next attempt (issue 32 item 3).
func TestUpDetails(t *testing.T) {
	at := time.Date(2026, 11, 29, 9, 0, 0, 0, time.Local)
	for _, tt := range []struct {
		name string
		st   up.AgentStatus
		want string
	}{
		{"busy", up.AgentStatus{State: supervise.Running, UptimeMs: 90_000, Queued: 2,
			Turn: &up.TurnStatus{Task: 3, Kind: "prompt", Source: "cli", ElapsedMs: 130_000}},
			", up 1m30s, task 3 (prompt cli) running 2m10s, 2 queued"},
		{"stalled", up.AgentStatus{State: supervise.Running,
			Turn: &up.TurnStatus{Task: 4, Kind: "heartbeat", Source: "heartbeat", ElapsedMs: 600_000, Stalled: true, LastUpdate: at}},
			", task 4 (heartbeat) running 10m0s, stalled: no update since 09:00:00"},
		{"backoff", up.AgentStatus{State: supervise.Backoff, Restarts: 1, NextStart: &at,
			LastError: "backend \"x\" exited (exit status 3)\nstderr: boom\nmore"},
			", restarts 1, restart at 09:00:00, last error: backend \"x\" exited (exit status 3)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := tt.st
			if got := (&processJSON{Up: &st}).upDetails(); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
