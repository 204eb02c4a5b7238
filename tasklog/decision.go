package tasklog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// DecisionMethod is the method of the line with which a task file records
// a permission decision: how actctl answered one of the agent's
// session/request_permission requests, and who decided. The line is
// actctl's record, not a message of the wire: the agent got the answer
// itself (docs/runtime.md, "Task log").
const DecisionMethod = "_actctl/permission"

// Decision is one permission decision as a task file records it.
type Decision struct {
	ToolCallID string `json:"toolCallId"`
	Title      string `json:"title,omitempty"`
	Kind       string `json:"kind,omitempty"`
	// Decision is "allowed", "denied" or "cancelled".
	Decision string `json:"decision"`
	// OptionID is the agent's option chosen (none when cancelled).
	OptionID string `json:"optionId,omitempty"`
	// By is who decided: "preset" (the agent's preset), "rule" (a rule
	// overriding it: --approve-all, --approve-reads, --deny-all),
	// "permissions" (one of the agent's own allow, deny or ask rules),
	// "user" (a person) or "cancel" (the turn was cancelled); Rule the
	// rule that answered ("reads", "edits", "all", "none"), or the agent's
	// own rule that matched ("deny Bash(rm:*)"; with "user", the ask rule
	// that put the request to the person).
	By   string `json:"by"`
	Rule string `json:"rule,omitempty"`
}

// recordLine is the line of one of actctl's records in a task file.
type recordLine struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

// record appends actctl's record of method to the task's file (as
// Message does a message).
func (w *Writer) record(method string, params any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(recordLine{JSONRPC: "2.0", Method: method, Params: params}) == nil {
		w.Message(b.Bytes())
	}
}

// Decision appends the permission decision d to the task's file.
func (w *Writer) Decision(d Decision) { w.record(DecisionMethod, d) }

// ParseDecision reads the params of a DecisionMethod line.
func ParseDecision(params json.RawMessage) (Decision, bool) {
	var d Decision
	if json.Unmarshal(params, &d) != nil || d.Decision == "" {
		return Decision{}, false
	}
	return d, true
}

// Words are d as a person reads it: "by the preset (rule edits)",
// "by the agent's permission rule deny Bash(rm:*)",
// "by --deny-all (rule none)", "by the user", "the turn was cancelled".
func (d Decision) Words() string {
	switch d.By {
	case "preset":
		return fmt.Sprintf("by the agent's preset (rule %s)", d.Rule)
	case "rule":
		return fmt.Sprintf("by a rule overriding the preset (rule %s)", d.Rule)
	case "permissions":
		if strings.HasPrefix(d.Rule, "ask ") {
			return fmt.Sprintf("by the agent's permission rule %s, which no person answered", d.Rule)
		}
		return fmt.Sprintf("by the agent's permission rule %s", d.Rule)
	case "user":
		if d.Rule != "" {
			return fmt.Sprintf("by the user (asked by the agent's permission rule %s)", d.Rule)
		}
		return "by the user"
	case "cancel":
		return "the turn was cancelled"
	}
	return "by " + d.By
}

// PluginMethod is the method of the line with which a task file records
// a session plugin's step (docs/plugins.md): which plugin, how long, the
// sizes of its text before and after, never the text. actctl's record,
// as a decision's line is.
const PluginMethod = "_actctl/plugin"

// PluginStep is one plugin step as a task file records it.
type PluginStep struct {
	Plugin     string `json:"plugin"`
	Direction  string `json:"direction"`
	DurationMs int64  `json:"durationMs"`
	InBytes    int    `json:"inBytes"`
	OutBytes   int    `json:"outBytes"`
	Changed    bool   `json:"changed"`
	Attempts   int    `json:"attempts,omitempty"`
	Outcome    string `json:"outcome"`
	Error      string `json:"error,omitempty"`
}

// Plugin appends the plugin step p to the task's file.
func (w *Writer) Plugin(p PluginStep) { w.record(PluginMethod, p) }

// ParsePluginStep reads the params of a PluginMethod line.
func ParsePluginStep(params json.RawMessage) (PluginStep, bool) {
	var p PluginStep
	if json.Unmarshal(params, &p) != nil || p.Plugin == "" {
		return PluginStep{}, false
	}
	return p, true
}

// Words are p as a person reads it: "plugin rules (inbound): 12 -> 40
// bytes in 0 ms", with the failure and what became of the text.
func (p PluginStep) Words() string {
	s := fmt.Sprintf("plugin %s (%s): %d -> %d bytes in %d ms", p.Plugin, p.Direction, p.InBytes, p.OutBytes, p.DurationMs)
	if p.Attempts > 1 {
		s += fmt.Sprintf(", %d attempts", p.Attempts)
	}
	switch p.Outcome {
	case "passed":
		s += ", failed (the text went on unchanged): " + p.Error
	case "failed":
		s += ", failed (the turn failed): " + p.Error
	}
	return s
}
