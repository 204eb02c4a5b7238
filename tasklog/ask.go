package tasklog

import (
	"bytes"
	"encoding/json"
	"time"
)

// AskMethod is the method of the line with which a task file records
// that a person was asked about one of the agent's permission requests
// (a dashboard conversation, docs/dashboard.md): the tool call, the
// agent's options and the deadline, after which the agent's preset
// answers. The answer follows as a DecisionMethod line. Like a decision,
// the line is actctl's record, not a message of the wire.
const AskMethod = "_actctl/ask"

// Ask is a permission request put to a person.
type Ask struct {
	ToolCallID string      `json:"toolCallId"`
	Title      string      `json:"title,omitempty"`
	Kind       string      `json:"kind,omitempty"`
	Options    []AskOption `json:"options"`
	Deadline   time.Time   `json:"deadline"`
}

// AskOption is one of the agent's options for a permission request.
type AskOption struct {
	ID   string `json:"optionId"`
	Name string `json:"name"`
	Kind string `json:"kind"` // allow_once, allow_always, reject_once, reject_always
}

// Ask appends the record of a person asked (as Message does a message).
func (w *Writer) Ask(a Ask) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	line := struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  Ask    `json:"params"`
	}{"2.0", AskMethod, a}
	if enc.Encode(line) == nil {
		w.Message(b.Bytes())
	}
}

// ParseAsk reads the params of an AskMethod line.
func ParseAsk(params json.RawMessage) (Ask, bool) {
	var a Ask
	if json.Unmarshal(params, &a) != nil || a.ToolCallID == "" {
		return Ask{}, false
	}
	return a, true
}
