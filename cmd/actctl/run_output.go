package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/plugin"
)

// runObserver prints a session's output. Text mode: the agent's message
// text to stdout as it streams; tool calls, plans, terminals and permission
// decisions as one line each on stderr; what the agent wrote is shown with
// its control characters escaped (internal/termsafe). JSON mode (-o json): every ACP
// message received, one JSON object a line on stdout, then a summary
// object (docs/json.md).
type runObserver struct {
	g    *globals
	json bool
	// steps: every plugin step gets a line (--debug-acp), not only a failed one.
	steps bool
	mu    sync.Mutex
	// lastNL: the text printed so far ends with a newline (or is empty).
	lastNL bool
	// oneScreen: stdout and stderr are terminals, so their lines share a
	// screen and a stderr line must not start in the middle of the
	// agent's text.
	oneScreen bool
}

func newRunObserver(g *globals) *runObserver {
	return &runObserver{g: g, json: g.JSON(), lastNL: true, oneScreen: isTerminal(g.Stdout) && isTerminal(g.Stderr)}
}

// line prints one line on stderr, on a line of its own: on a screen it
// shares with stdout, after a newline ending the text streamed so far.
func (o *runObserver) line(format string, args ...any) {
	if o.oneScreen && !o.lastNL {
		fmt.Fprintln(o.g.Stderr)
		o.lastNL = true
	}
	fmt.Fprintf(o.g.Stderr, format+"\n", args...)
}

func (o *runObserver) Message(line []byte) {
	if !o.json {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.g.Stdout.Write(append(append([]byte(nil), line...), '\n'))
}

func (o *runObserver) Event(e acpclient.Event) {
	if o.json {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	switch e.Kind {
	case acpclient.EventText:
		if e.Text != "" {
			fmt.Fprint(o.g.Stdout, termsafe.Text(e.Text))
			o.lastNL = strings.HasSuffix(e.Text, "\n")
		}
	case acpclient.EventToolCall:
		o.line("%s", toolCallLine(*e.ToolCall))
	case acpclient.EventPlan:
		var parts []string
		for _, p := range e.Plan {
			parts = append(parts, fmt.Sprintf("[%s] %s", termsafe.Line(string(p.Status)), termsafe.Line(p.Content)))
		}
		o.line("plan: %s", strings.Join(parts, "; "))
	case acpclient.EventTerminal:
		o.line("terminal %s", termsafe.Line(e.Text))
	case acpclient.EventPlugin:
		if p := e.Plugin; p.Outcome != "ok" {
			o.line("%s", pluginLine(*p))
		} else if o.steps {
			o.line("actctl: plugin step: %s", termsafe.Line(employee.PluginStep(*p).Words()))
		}
	}
}

// pluginLine is the warning of a session plugin's failed step
// (docs/plugins.md): the text went on unchanged, or the turn fails.
func pluginLine(p acpclient.PluginStep) string {
	p.Error = termsafe.Line(p.Error)
	return "actctl: warning: " + plugin.Warning(p)
}

// toolCallLine is the stderr line for one tool-call state change; the
// permission decisions are among them. What the agent gave (title, kind,
// option, state) is escaped (internal/termsafe).
func toolCallLine(t acpclient.ToolCall) string {
	kind := termsafe.Line(string(t.Kind))
	if kind == "" {
		kind = "other"
	}
	title := t.Title
	if title == "" {
		title = t.ID
	}
	title = termsafe.Line(title)
	t.State = acpclient.State(termsafe.Line(string(t.State)))
	t.OptionID = termsafe.Line(t.OptionID)
	switch t.State {
	case acpclient.StateAwaiting:
		return fmt.Sprintf("permission? %s (%s)", title, kind)
	case acpclient.StateAllowed, acpclient.StateDenied:
		return fmt.Sprintf("permission %s: %s (%s), option \"%s\"", t.State, title, kind, t.OptionID)
	case acpclient.StateCancelled:
		return fmt.Sprintf("permission cancelled: %s (%s)", title, kind)
	}
	return fmt.Sprintf("tool %s (%s): %s", title, kind, t.State)
}

// runSummary is the last object of -o json (docs/json.md).
type runSummary struct {
	Type        string         `json:"type"`
	Agent       string         `json:"agent"`
	StopReason  string         `json:"stopReason"`
	SessionID   string         `json:"sessionId"`
	DurationMs  int64          `json:"durationMs"`
	Permissions runPermissions `json:"permissions"`
	ExitCode    int            `json:"exitCode"`
	Error       string         `json:"error,omitempty"`
}

type runPermissions struct {
	Allowed   int `json:"allowed"`
	Denied    int `json:"denied"`
	Cancelled int `json:"cancelled"`
}

// summary ends a turn: the JSON summary object, or in text mode a newline
// after text that lacked one.
func (o *runObserver) summary(agent string, res acpclient.Result, code int, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.json {
		if !o.lastNL {
			fmt.Fprintln(o.g.Stdout)
			o.lastNL = true
		}
		return
	}
	s := runSummary{
		Type: "summary", Agent: agent, StopReason: string(res.StopReason), SessionID: res.SessionID,
		DurationMs: res.Duration.Milliseconds(), ExitCode: code,
		Permissions: runPermissions{res.Permissions.Allowed, res.Permissions.Denied, res.Permissions.Cancelled},
	}
	if err != nil {
		s.Error = err.Error()
	}
	b, _ := json.Marshal(s)
	o.g.Stdout.Write(append(b, '\n'))
}

// codeOf is the exit code err makes actctl exit with.
func codeOf(err error) int {
	var ec *exitCode
	if errors.As(err, &ec) {
		return ec.code
	}
	return exitError
}
