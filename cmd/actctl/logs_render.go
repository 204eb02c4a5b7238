package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
	case m.Method == "session/update" || m.Method == "session/request_permission":
		if l, ok := acpclient.ParseLogged(m.Method, m.Params); ok {
			r.logged(l)
		}
	case m.Method == tasklog.DecisionMethod:
		if d, ok := tasklog.ParseDecision(m.Params); ok {
			r.decision(d)
		}
	case m.Method == tasklog.PluginMethod:
		if p, ok := tasklog.ParsePluginStep(m.Params); ok {
			r.printLine(termsafe.Line(p.Words()))
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

// logged renders the agent's text, a tool call's change or a permission
// request.
func (r *taskRenderer) logged(l acpclient.Logged) {
	switch {
	case l.Kind == acpclient.EventText:
		if l.Text != "" {
			fmt.Fprint(r.w, termsafe.Text(l.Text))
			r.lastNL = strings.HasSuffix(l.Text, "\n")
		}
	case l.Permission:
		c := r.merge(l.ID, l.Title, l.ToolKind, nil)
		c.State = acpclient.StateAwaiting
		r.printLine(toolCallLine(c))
	case l.Kind == acpclient.EventToolCall:
		r.printLine(toolCallLine(r.merge(l.ID, l.Title, l.ToolKind, l.Status)))
	}
}

// decision prints actctl's record of a permission decision, with who
// decided.
func (r *taskRenderer) decision(d tasklog.Decision) {
	var title *string
	if d.Title != "" {
		title = &d.Title
	}
	var kind *acpclient.ToolKind
	if d.Kind != "" {
		kind = (*acpclient.ToolKind)(&d.Kind)
	}
	c := r.merge(d.ToolCallID, title, kind, nil)
	c.State, c.OptionID = acpclient.State(d.Decision), d.OptionID
	r.printLine(toolCallLine(c) + ", " + termsafe.Line(d.Words()))
}

// merge records what a message says of tool call id (the fields it has)
// and returns the call as known so far.
func (r *taskRenderer) merge(id string, title *string, kind *acpclient.ToolKind, state *acpclient.State) acpclient.ToolCall {
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
	if state != nil {
		c.State = *state
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
