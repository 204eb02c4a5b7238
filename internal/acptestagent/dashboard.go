package acptestagent

import (
	"strconv"

	acp "github.com/coder/acp-go-sdk"
)

// The dashboard's browser test (cmd/actctl, docs/dashboard.md):
//
//	html-title   a tool call titled HostileTitle, completed, then the
//	             text "<b>bold</b> done": agent text that a page must
//	             show as text, never run or render
//	chunks N     N text chunks "chunk 1 " ... "chunk N ", then "end":
//	             a reply that streams in pieces
const HostileTitle = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`

func init() {
	register("html-title", func(t *Turn) (acp.StopReason, error) {
		c := t.Conn()
		_ = c.SessionUpdate(t.Ctx, acp.SessionNotification{SessionId: t.SID, Update: acp.StartToolCall("html-1", HostileTitle,
			acp.WithStartKind(acp.ToolKindRead), acp.WithStartStatus(acp.ToolCallStatusPending))})
		_ = c.SessionUpdate(t.Ctx, acp.SessionNotification{SessionId: t.SID, Update: acp.UpdateToolCall("html-1",
			acp.WithUpdateStatus(acp.ToolCallStatusCompleted))})
		t.Say("<b>bold</b> done")
		return acp.StopReasonEndTurn, nil
	})
	register("chunks", func(t *Turn) (acp.StopReason, error) {
		n := 3
		if len(t.Words) > 1 {
			if v, err := strconv.Atoi(t.Words[1]); err == nil {
				n = v
			}
		}
		for i := 1; i <= n; i++ {
			t.Say("chunk " + strconv.Itoa(i) + " ")
		}
		t.Say("end")
		return acp.StopReasonEndTurn, nil
	})
}
