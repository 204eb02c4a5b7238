package acpclient

import (
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// ToolKind, PermissionOption and StopReason are the ACP library's types
// that this package's API carries (ToolCall.Kind, AskFunc, Result),
// named here so that its callers need not import the library.
type (
	ToolKind         = acp.ToolKind
	PermissionOption = acp.PermissionOption
	StopReason       = acp.StopReason
	SessionInfo      = acp.SessionInfo
)

// StopReasonCancelled is the stop reason of a cancelled turn.
const StopReasonCancelled = acp.StopReasonCancelled

// Logged is what one logged message from the agent says of its turn,
// for a reader of a task log (`actctl logs`): the agent's text, or the
// fields of one tool call that the message gives (nil: not given).
type Logged struct {
	// Kind is EventText or EventToolCall; "" for any other update.
	Kind EventKind
	Text string
	// Permission marks a permission request for the tool call.
	Permission bool
	ID         string
	Title      *string
	ToolKind   *ToolKind
	// Status is the agent's status as the client's state of the same
	// name; a tool_call without one is pending.
	Status *State
}

// ParseLogged reads the params of a session/update or a
// session/request_permission message; ok is false for another method or
// params it cannot read.
func ParseLogged(method string, params json.RawMessage) (l Logged, ok bool) {
	switch method {
	case "session/update":
		var n acp.SessionNotification
		if json.Unmarshal(params, &n) != nil {
			return Logged{}, false
		}
		return loggedUpdate(n.Update), true
	case "session/request_permission":
		var req acp.RequestPermissionRequest
		if json.Unmarshal(params, &req) != nil {
			return Logged{}, false
		}
		tc := req.ToolCall
		return Logged{Kind: EventToolCall, Permission: true, ID: string(tc.ToolCallId), Title: tc.Title, ToolKind: tc.Kind}, true
	}
	return Logged{}, false
}

// loggedUpdate is what a session/update says of the turn.
func loggedUpdate(u acp.SessionUpdate) Logged {
	switch {
	case u.AgentMessageChunk != nil:
		l := Logged{Kind: EventText}
		if t := u.AgentMessageChunk.Content.Text; t != nil {
			l.Text = t.Text
		}
		return l
	case u.ToolCall != nil:
		tc := u.ToolCall
		status := State(tc.Status)
		if status == "" {
			status = StatePending
		}
		return Logged{Kind: EventToolCall, ID: string(tc.ToolCallId), Title: &tc.Title, ToolKind: &tc.Kind, Status: &status}
	case u.ToolCallUpdate != nil:
		tc := u.ToolCallUpdate
		l := Logged{Kind: EventToolCall, ID: string(tc.ToolCallId), Title: tc.Title, ToolKind: tc.Kind}
		if tc.Status != nil {
			status := State(*tc.Status)
			l.Status = &status
		}
		return l
	}
	return Logged{}
}
