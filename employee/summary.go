package employee

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Summary is the last object `actctl task -o json` prints: run's summary
// (docs/json.md) with the task's id, kind, source and log.
type Summary struct {
	Type        string      `json:"type"` // "summary"
	Agent       string      `json:"agent"`
	Task        uint64      `json:"task"`
	Kind        string      `json:"kind"`
	Source      string      `json:"source"`
	StopReason  string      `json:"stopReason"`
	SessionID   string      `json:"sessionId"`
	DurationMs  int64       `json:"durationMs"`
	Permissions Permissions `json:"permissions"`
	ExitCode    int         `json:"exitCode"`
	Error       string      `json:"error,omitempty"`
	// Log is the task's message log, relative to the agent's logs
	// directory ("" when it was not logged).
	Log string `json:"log,omitempty"`
}

// Permissions counts the turn's permission answers.
type Permissions struct {
	Allowed   int `json:"allowed"`
	Denied    int `json:"denied"`
	Cancelled int `json:"cancelled"`
}

// JSON is the summary as one line of JSON.
func (s Summary) JSON() []byte {
	b, _ := json.Marshal(s)
	return append(b, '\n')
}

// Text is the summary as one line for a person.
func (s Summary) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "task %d of %s (%s): ", s.Task, s.Agent, s.Source)
	if s.StopReason != "" {
		b.WriteString(s.StopReason)
	} else {
		b.WriteString("no stop reason")
	}
	fmt.Fprintf(&b, ", exit %d, %s", s.ExitCode, time.Duration(s.DurationMs)*time.Millisecond)
	if s.Log != "" {
		fmt.Fprintf(&b, ", log %s", s.Log)
	}
	if s.Error != "" {
		fmt.Fprintf(&b, ": %s", s.Error)
	}
	return b.String() + "\n"
}

// Markdown is the summary as a GitHub step summary: a heading and a
// table, the error (if any) in a code block.
func (s Summary) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "### actctl task %s #%d (%s)\n\n", cell(s.Agent), s.Task, cell(s.Source))
	b.WriteString("| stop reason | exit code | duration | permissions | log |\n|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %s | %d | %s | %d allowed, %d denied | %s |\n", cell(s.StopReason), s.ExitCode,
		time.Duration(s.DurationMs)*time.Millisecond, s.Permissions.Allowed, s.Permissions.Denied, cell(s.Log))
	if s.Error != "" {
		fmt.Fprintf(&b, "\n```\n%s\n```\n", strings.ReplaceAll(s.Error, "```", "` ` `"))
	}
	return b.String() + "\n"
}

// cell makes text safe in a Markdown table cell.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

// TerminationMax bounds a termination message: Kubernetes keeps at most
// 4096 bytes of it.
const TerminationMax = 4096

// Termination is the summary for a termination log (Kubernetes'
// terminationMessagePath): JSON or text, its error cut so that the whole
// stays under TerminationMax bytes.
func (s Summary) Termination(asJSON bool) []byte {
	render := func(s Summary) []byte {
		if asJSON {
			return s.JSON()
		}
		return []byte(s.Text())
	}
	b := render(s)
	for len(b) >= TerminationMax && s.Error != "" {
		over := len(b) - TerminationMax + len(" [cut]") + 1
		keep := max(len(s.Error)-over, 0)
		for keep > 0 && !utf8.RuneStart(s.Error[keep]) {
			keep--
		}
		s.Error = s.Error[:keep] + " [cut]"
		b = render(s)
		if keep == 0 {
			break
		}
	}
	return b
}
