package dashboard

import (
	"bytes"
	"encoding/json"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/tasklog"
)

// Item is one piece of a task's log as the dashboard shows it: the
// agent's text, a tool call with its state, a permission decision, a
// session plugin's step (docs/plugins.md), the turn's end or an error. Its strings are the agent's, shown as text.
type Item struct {
	Kind   string `json:"kind"` // "text", "tool", "ask", "permission", "plugin", "stop", "error"
	ID     string `json:"id,omitempty"`
	Title  string `json:"title,omitempty"`
	Status string `json:"status,omitempty"` // a tool call's state; a permission's decision
	Text   string `json:"text,omitempty"`
	// Options are the agent's options of a permission request put to the
	// person (kind "ask"), whose answer follows as a "permission" item
	// of the same ID.
	Options []tasklog.AskOption `json:"options,omitempty"`
}

// Permissions counts a task's permission decisions.
type Permissions struct {
	Allowed int `json:"allowed"`
	Denied  int `json:"denied"`
}

// LogReader turns a task's ACP messages, one JSON line at a time, into
// Items (docs/dashboard.md). It remembers the permission requests until
// their answers come.
type LogReader struct {
	asked map[string]permAsk // by JSON-RPC id
	Perms Permissions
}

type permAsk struct {
	title string
	kinds map[string]string // option id -> kind
}

// rpc is the part of a JSON-RPC message the reader needs.
type rpc struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Line returns the items of one message; a line it does not know gives
// none.
func (lr *LogReader) Line(l []byte) []Item {
	var m rpc
	if json.Unmarshal(l, &m) != nil {
		return nil
	}
	switch {
	case m.Method == "session/update":
		var n acp.SessionNotification
		if json.Unmarshal(m.Params, &n) == nil {
			return update(n.Update)
		}
	case m.Method == "session/request_permission":
		lr.ask(m)
	case m.Method == tasklog.DecisionMethod:
		return lr.decision(m.Params)
	case m.Method == tasklog.PluginMethod:
		if p, ok := tasklog.ParsePluginStep(m.Params); ok {
			return []Item{{Kind: "plugin", Title: p.Plugin, Status: p.Outcome, Text: p.Words()}}
		}
	case m.Method == tasklog.AskMethod:
		if a, ok := tasklog.ParseAsk(m.Params); ok {
			return []Item{{Kind: "ask", ID: a.ToolCallID, Title: a.Title, Status: "awaiting your answer", Options: a.Options}}
		}
	case m.Method == "" && m.Error != nil:
		return []Item{{Kind: "error", Text: m.Error.Message}}
	case m.Method == "" && len(m.Result) > 0:
		return lr.answer(m)
	}
	return nil
}

func update(u acp.SessionUpdate) []Item {
	switch {
	case u.AgentMessageChunk != nil:
		if t := u.AgentMessageChunk.Content.Text; t != nil && t.Text != "" {
			return []Item{{Kind: "text", Text: t.Text}}
		}
	case u.ToolCall != nil:
		st := string(u.ToolCall.Status)
		if st == "" {
			st = string(acp.ToolCallStatusPending)
		}
		return []Item{{Kind: "tool", ID: string(u.ToolCall.ToolCallId), Title: u.ToolCall.Title, Status: st}}
	case u.ToolCallUpdate != nil:
		it := Item{Kind: "tool", ID: string(u.ToolCallUpdate.ToolCallId)}
		if u.ToolCallUpdate.Title != nil {
			it.Title = *u.ToolCallUpdate.Title
		}
		if u.ToolCallUpdate.Status != nil {
			it.Status = string(*u.ToolCallUpdate.Status)
		}
		return []Item{it}
	}
	return nil
}

func (lr *LogReader) ask(m rpc) {
	var req acp.RequestPermissionRequest
	if json.Unmarshal(m.Params, &req) != nil || len(m.ID) == 0 {
		return
	}
	a := permAsk{kinds: map[string]string{}}
	if req.ToolCall.Title != nil {
		a.title = *req.ToolCall.Title
	}
	for _, o := range req.Options {
		a.kinds[string(o.OptionId)] = string(o.Kind)
	}
	if lr.asked == nil {
		lr.asked = map[string]permAsk{}
	}
	lr.asked[string(m.ID)] = a
}

// answer reads a result: a turn's end, or a permission decision.
func (lr *LogReader) answer(m rpc) []Item {
	var res struct {
		StopReason string `json:"stopReason"`
		Outcome    *struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	if json.Unmarshal(m.Result, &res) != nil {
		return nil
	}
	if res.StopReason != "" {
		return []Item{{Kind: "stop", Text: res.StopReason}}
	}
	a, ok := lr.asked[string(m.ID)]
	if !ok || res.Outcome == nil {
		return nil
	}
	delete(lr.asked, string(m.ID))
	decision := "denied"
	if res.Outcome.Outcome == "selected" && strings.HasPrefix(a.kinds[res.Outcome.OptionID], "allow") {
		decision = "allowed"
	}
	if decision == "allowed" {
		lr.Perms.Allowed++
	} else {
		lr.Perms.Denied++
	}
	return []Item{{Kind: "permission", Title: a.title, Status: decision}}
}

// decision reads actctl's record of a permission decision: an item with
// who decided, counted unless it was cancelled.
func (lr *LogReader) decision(params json.RawMessage) []Item {
	d, ok := tasklog.ParseDecision(params)
	if !ok {
		return nil
	}
	switch d.Decision {
	case "allowed":
		lr.Perms.Allowed++
	case "denied":
		lr.Perms.Denied++
	}
	return []Item{{Kind: "permission", ID: d.ToolCallID, Title: d.Title, Status: d.Decision, Text: d.Words()}}
}

// ReadLog renders a whole task log: text chunks joined, one item per
// tool call in its last state (where it first appeared), a request put
// to the person replaced by its answer once there is one.
func ReadLog(data []byte) ([]Item, Permissions) {
	var lr LogReader
	var out []Item
	tools := map[string]int{} // tool call id -> index in out
	asks := map[string]int{}  // tool call id -> index in out of its ask
	for _, l := range bytes.Split(data, []byte("\n")) {
		for _, it := range lr.Line(l) {
			out = merge(out, tools, asks, it)
		}
	}
	return out, lr.Perms
}

func merge(out []Item, tools, asks map[string]int, it Item) []Item {
	switch it.Kind {
	case "ask":
		asks[it.ID] = len(out)
	case "permission":
		if i, ok := asks[it.ID]; ok {
			delete(asks, it.ID)
			out[i] = it
			return out
		}
	case "text":
		if n := len(out); n > 0 && out[n-1].Kind == "text" {
			out[n-1].Text += it.Text
			return out
		}
	case "tool":
		if i, ok := tools[it.ID]; ok {
			if it.Title != "" {
				out[i].Title = it.Title
			}
			if it.Status != "" {
				out[i].Status = it.Status
			}
			return out
		}
		tools[it.ID] = len(out)
	}
	return append(out, it)
}
