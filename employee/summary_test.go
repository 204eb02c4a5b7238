package employee

import (
	"encoding/json"
	"strings"
	"testing"
)

var sample = Summary{Type: "summary", Agent: "triage", Task: 7, Kind: "heartbeat", Source: "heartbeat", StopReason: "end_turn",
	SessionID: "s1", DurationMs: 1500, Permissions: Permissions{Allowed: 2, Denied: 1}, Log: "tasks/20261126T060000Z-7.jsonl"}

// TestSummaryRender: the text line, the JSON object and the Markdown of a
// step summary, for a task that ended well and one that failed.
func TestSummaryRender(t *testing.T) {
	failed := sample
	failed.StopReason, failed.ExitCode, failed.Error, failed.Log = "", 124, "timed out | after ```1s```", ""
	for _, tc := range []struct {
		s                  Summary
		text, json, mdWant string
	}{
		{sample,
			"task 7 of triage (heartbeat): end_turn, exit 0, 1.5s, log tasks/20261126T060000Z-7.jsonl\n",
			`{"type":"summary","agent":"triage","task":7,"kind":"heartbeat","source":"heartbeat","stopReason":"end_turn","sessionId":"s1","durationMs":1500,"permissions":{"allowed":2,"denied":1,"cancelled":0},"exitCode":0,"log":"tasks/20261126T060000Z-7.jsonl"}` + "\n",
			"### actctl task triage #7 (heartbeat)\n\n| stop reason | exit code | duration | permissions | log |\n|---|---|---|---|---|\n| end_turn | 0 | 1.5s | 2 allowed, 1 denied | tasks/20261126T060000Z-7.jsonl |\n\n"},
		{failed,
			"task 7 of triage (heartbeat): no stop reason, exit 124, 1.5s: timed out | after ```1s```\n",
			`{"type":"summary","agent":"triage","task":7,"kind":"heartbeat","source":"heartbeat","stopReason":"","sessionId":"s1","durationMs":1500,"permissions":{"allowed":2,"denied":1,"cancelled":0},"exitCode":124,"error":"timed out | after ` + "```1s```" + `"}` + "\n",
			"| - | 124 | 1.5s | 2 allowed, 1 denied | - |\n\n```\ntimed out | after ` ` `1s` ` `\n```\n\n"},
	} {
		if got := tc.s.Text(); got != tc.text {
			t.Errorf("Text:\n got %q\nwant %q", got, tc.text)
		}
		if got := string(tc.s.JSON()); got != tc.json {
			t.Errorf("JSON:\n got %s\nwant %s", got, tc.json)
		}
		if got := tc.s.Markdown(); !strings.HasSuffix(got, tc.mdWant) {
			t.Errorf("Markdown:\n got %q\nwant a suffix %q", got, tc.mdWant)
		}
	}
}

// TestTerminationBound: a huge error is cut so that the termination
// message stays under 4096 bytes, valid JSON and valid UTF-8.
func TestTerminationBound(t *testing.T) {
	s := sample
	s.Error = strings.Repeat("é", 5000)
	for _, asJSON := range []bool{true, false} {
		b := s.Termination(asJSON)
		if len(b) >= TerminationMax {
			t.Errorf("json=%v: %d bytes", asJSON, len(b))
		}
		if !strings.Contains(string(b), " [cut]") || !strings.Contains(string(b), "é") {
			t.Errorf("json=%v: no cut error: %.80s", asJSON, b)
		}
		if asJSON {
			var back Summary
			if err := json.Unmarshal(b, &back); err != nil {
				t.Errorf("not JSON: %v", err)
			}
		}
	}
	if b := sample.Termination(true); string(b) != string(sample.JSON()) {
		t.Errorf("a short summary changed: %s", b)
	}
}
