package acptestagent

import (
	"context"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// The ops of the permission rules' tests (docs/run.md, "Permission
// rules"): a permission request whose tool call carries its input as
// claude-agent-acp sends it, offering allow_once "yes" and reject_once
// "no"; "permission: <option id>" or "permission: cancelled".
//
//	perm-cmd COMMAND...    kind execute, title the command in backticks,
//	                       rawInput {"command": COMMAND}
//	perm-path KIND PATH    kind KIND, title "KIND PATH", rawInput
//	                       {"file_path": PATH}
func init() {
	register("perm-cmd", func(t *Turn) (acp.StopReason, error) {
		cmd := strings.Join(t.Words[1:], " ")
		return askTool(t, acp.ToolKindExecute, "`"+cmd+"`", map[string]any{"command": cmd})
	})
	register("perm-path", func(t *Turn) (acp.StopReason, error) {
		if len(t.Words) < 3 {
			t.Say("perm-path error: want KIND PATH\n")
			return acp.StopReasonEndTurn, nil
		}
		kind := acp.ToolKind(t.Words[1])
		return askTool(t, kind, t.Words[1]+" "+t.Words[2], map[string]any{"file_path": t.Words[2]})
	})
}

// askTool makes one tool call of kind and asks permission for it.
func askTool(t *Turn, kind acp.ToolKind, title string, raw map[string]any) (acp.StopReason, error) {
	id := acp.ToolCallId("call-" + string(kind))
	_ = t.Conn().SessionUpdate(t.Ctx, acp.SessionNotification{SessionId: t.SID, Update: acp.StartToolCall(id, title,
		acp.WithStartKind(kind), acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartRawInput(raw))})
	resp, err := t.Conn().RequestPermission(context.Background(), acp.RequestPermissionRequest{SessionId: t.SID,
		ToolCall: acp.ToolCallUpdate{ToolCallId: id, Title: acp.Ptr(title), Kind: acp.Ptr(kind), RawInput: raw},
		Options:  allowOrReject()})
	outcome := permissionOutcome(resp, err)
	t.Say("permission: " + outcome + "\n")
	return acp.StopReasonEndTurn, nil
}
