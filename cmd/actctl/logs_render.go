package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/tasklog"
)

// taskRenderer prints a task's ACP messages for reading, as `actctl run`
// shows a turn: the agent's message text as it streamed, and a line for
// each tool call state change, permission request, and the turn's end.
// Other messages (thoughts, the agent's own requests for files) are left
// out; `logs --task ID -o json` prints them all. What the agent wrote is
// escaped (internal/termsafe).
type taskRenderer struct {
	w      io.Writer
	lastNL bool // what was printed so far ends with a newline (or is empty)
	calls  map[string]acpclient.ToolCall
}

func newTaskRenderer(w io.Writer) *taskRenderer {
	return &taskRenderer{w: w, lastNL: true, calls: map[string]acpclient.ToolCall{}}
}

// rpcMessage is the part of a JSON-RPC message the renderer reads.
type rpcMessage struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result *struct {
		StopReason string `json:"stopReason"`
	} `json:"result"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// line renders one message; a line that is not a message it knows is
// skipped.
func (r *taskRenderer) line(l []byte) {
	var m rpcMessage
	if json.Unmarshal(l, &m) != nil {
		return
	}
	switch {
	case m.Method == "session/update":
		var n acp.SessionNotification
		if json.Unmarshal(m.Params, &n) == nil {
			r.update(n.Update)
		}
	case m.Method == "session/request_permission":
		var req acp.RequestPermissionRequest
		if json.Unmarshal(m.Params, &req) == nil {
			c := r.merge(string(req.ToolCall.ToolCallId), req.ToolCall.Title, req.ToolCall.Kind, nil)
			c.State = acpclient.StateAwaiting
			r.printLine(toolCallLine(c))
		}
	case m.Method == tasklog.DecisionMethod:
		if d, ok := tasklog.ParseDecision(m.Params); ok {
			r.decision(d)
		}
	case m.Method == tasklog.AskMethod:
		if a, ok := tasklog.ParseAsk(m.Params); ok {
			r.printLine(askLine(a))
		}
	case m.Method == "" && m.Result != nil && m.Result.StopReason != "":
		r.printLine("stop: " + termsafe.Line(m.Result.StopReason))
	case m.Method == "" && m.Error != nil:
		r.printLine("error: " + termsafe.Line(m.Error.Message))
	}
}

func (r *taskRenderer) update(u acp.SessionUpdate) {
	switch {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil && t.Text != "" {
			fmt.Fprint(r.w, termsafe.Text(t.Text))
			r.lastNL = strings.HasSuffix(t.Text, "\n")
		}
	case u.ToolCall != nil:
		tc := u.ToolCall
		status := tc.Status
		if status == "" {
			status = acp.ToolCallStatusPending
		}
		r.printLine(toolCallLine(r.merge(string(tc.ToolCallId), &tc.Title, &tc.Kind, &status)))
	case u.ToolCallUpdate != nil:
		tc := u.ToolCallUpdate
		r.printLine(toolCallLine(r.merge(string(tc.ToolCallId), tc.Title, tc.Kind, tc.Status)))
	}
}

// decision prints actctl's record of a permission decision, with who
// decided.
func (r *taskRenderer) decision(d tasklog.Decision) {
	var title *string
	if d.Title != "" {
		title = &d.Title
	}
	var kind *acp.ToolKind
	if d.Kind != "" {
		kind = (*acp.ToolKind)(&d.Kind)
	}
	c := r.merge(d.ToolCallID, title, kind, nil)
	c.State, c.OptionID = acpclient.State(d.Decision), d.OptionID
	r.printLine(toolCallLine(c) + ", " + termsafe.Line(d.Words()))
}

// merge records what a message says of tool call id (the fields it has)
// and returns the call as known so far.
func (r *taskRenderer) merge(id string, title *string, kind *acp.ToolKind, status *acp.ToolCallStatus) acpclient.ToolCall {
	c, ok := r.calls[id]
	if !ok {
		c = acpclient.ToolCall{ID: id, State: acpclient.StatePending}
	}
	if title != nil {
		c.Title = *title
	}
	if kind != nil {
		c.Kind = *kind
	}
	if status != nil {
		// The agent's statuses are the client's states of the same name.
		c.State = acpclient.State(*status)
	}
	r.calls[id] = c
	return c
}

// printLine prints s on a line of its own, after the text before it.
func (r *taskRenderer) printLine(s string) {
	if !r.lastNL {
		fmt.Fprintln(r.w)
	}
	fmt.Fprintln(r.w, s)
	r.lastNL = true
}

// end ends the output with a newline after text that lacked one.
func (r *taskRenderer) end() {
	if !r.lastNL {
		fmt.Fprintln(r.w)
		r.lastNL = true
	}
}

// askLine is a permission request put to the person (a dashboard
// conversation): the tool call, the agent's options, and when the
// preset would answer instead.
func askLine(a tasklog.Ask) string {
	names := make([]string, len(a.Options))
	for i, o := range a.Options {
		names[i] = termsafe.Line(o.Name)
	}
	return fmt.Sprintf("asked the user: %s (%s): %s; the preset answers at %s", termsafe.Line(a.Title), termsafe.Line(a.Kind),
		strings.Join(names, ", "), a.Deadline.UTC().Format("15:04:05 UTC"))
}
