package control

import (
	"encoding/json"
	"errors"
	"strconv"
)

// The requests up answers.
const (
	OpStatus  = "status"
	OpStart   = "start"
	OpStop    = "stop"
	OpRestart = "restart"
	OpPrompt  = "prompt"
	// OpLogs streams an agent's task log lines; `logs --kube` uses it
	// (locally the command reads the files itself).
	OpLogs = "logs"
	// OpLease turns the connection into a raw ACP stream to a warm
	// agent (docs/runtime.md, "Session leases"): see Upgrader and Stream.
	OpLease = "lease"
)

// The requests of runtime subscriptions (docs/runtime.md, "Runtime
// subscriptions"): an employee adds or removes a prompt hook of its own
// (actctl mcp's subscribe and unsubscribe); `actctl get hooks` lists them.
const (
	// OpSubscribe: Agent, the subscriber, is prompted with Text on Event
	// (for Agents when set); the result is the subscription.
	OpSubscribe = "subscribe"
	// OpUnsubscribe removes Agent's subscription ID.
	OpUnsubscribe = "unsubscribe"
	// OpHooks lists the runtime subscriptions.
	OpHooks = "hooks"
)

// The dashboard's requests (docs/dashboard.md).
const (
	// OpCanvas sets an employee's live canvas: Agent is the employee,
	// Text its HTML (the MCP tool canvas_update).
	OpCanvas = "canvas"
)

// Ops lists every request up answers: the server refuses any other op
// before its handler sees it.
var Ops = []string{OpStatus, OpStart, OpStop, OpRestart, OpPrompt, OpLogs, OpLease, OpSubscribe, OpUnsubscribe, OpHooks, OpCanvas}

var knownOps = func() map[string]bool {
	m := make(map[string]bool, len(Ops))
	for _, op := range Ops {
		m[op] = true
	}
	return m
}()

// Request is what a command asks of up: one per connection.
type Request struct {
	Op     string `json:"op"`
	Agent  string `json:"agent,omitempty"`
	Text   string `json:"text,omitempty"`   // prompt: the prompt
	Wait   bool   `json:"wait,omitempty"`   // prompt: wait for the task's result
	Follow bool   `json:"follow,omitempty"` // logs: keep streaming (-f)
	Task   uint64 `json:"task,omitempty"`   // logs: one task's log
	Output string `json:"output,omitempty"` // "text" or "json" (-o)
	// Chain, on a prompt a hook's command made, is the hook chain that
	// caused it (package hooks' Chain as JSON, docs/runtime.md "Hook
	// loops"): up drops the prompt when the chain is too long.
	Chain  json.RawMessage `json:"chain,omitempty"`
	Client string          `json:"client,omitempty"` // lease: the client's identity (docs/runtime.md, "Session leases")
	// Source, on a prompt, is who prompted ("cli", "mcp", "hook"): the
	// task log's source (docs/json.md); empty is "cli".
	Source string `json:"source,omitempty"`
	// Event, Agents and ID are a subscription's (OpSubscribe,
	// OpUnsubscribe).
	Event  string   `json:"event,omitempty"`
	Agents []string `json:"agents,omitempty"`
	ID     string   `json:"id,omitempty"`
}

// Frame is a piece of streamed output. Kind and Data are the handler's.
type Frame struct {
	Kind string          `json:"kind"`
	Data json.RawMessage `json:"data,omitempty"`
}

// Final is up's answer, the last frame of a connection. Code is the exit
// status the command should end with.
type Final struct {
	Error  string          `json:"error,omitempty"`
	Code   int             `json:"code,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// Err is f's error with its exit code (an *ExitError), nil on success.
func (f Final) Err() error {
	if f.Error == "" && f.Code == 0 {
		return nil
	}
	code := f.Code
	if code == 0 {
		code = 1
	}
	msg := f.Error
	if msg == "" {
		return &ExitError{Code: code}
	}
	return &ExitError{Code: code, Err: errors.New(msg)}
}

// wire is one line from the server: a Frame, or the Final when Done.
type wire struct {
	Kind   string          `json:"kind,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
	Done   bool            `json:"done,omitempty"`
	Error  string          `json:"error,omitempty"`
	Code   int             `json:"code,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// CodeError is an error that chooses the command's exit status; a
// handler's error without one ends the command with 1.
type CodeError interface {
	error
	ExitCode() int
}

// ExitError is an error with an exit status. Err may be nil: exit with
// Code and say nothing.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return "exit status " + strconv.Itoa(e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the exit status.
func (e *ExitError) ExitCode() int { return e.Code }

// exitCode is the exit status err asks for: 0 for nil, its ExitCode when
// it has a non-zero one, else 1.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ce CodeError
	if errors.As(err, &ce) && ce.ExitCode() != 0 {
		return ce.ExitCode()
	}
	return 1
}
