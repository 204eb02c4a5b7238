package main

import (
	"io"
	"strings"

	"github.com/actctl/actctl/workspace"
)

// ANSI colours. Every code has the same length, so that columns lined up
// by tabwriter stay lined up when each cell of a column is painted.
const (
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiPlain  = "\x1b[39m"
	ansiReset  = "\x1b[0m"
)

// palette paints text when colour is on and returns it unchanged when off.
type palette bool

// colorFor decides colour for one output stream, as the README's --no-color
// says: only on a terminal, never with --no-color or a non-empty NO_COLOR, and
// not on a dumb terminal.
func colorFor(w io.Writer, noColor bool, getenv func(string) string) palette {
	if noColor || getenv("NO_COLOR") != "" || getenv("TERM") == "dumb" {
		return false
	}
	return palette(isTerminal(w))
}

func (p palette) paint(code, s string) string {
	if !p {
		return s
	}
	return code + s + ansiReset
}

// action paints an apply/diff action by what it does to the user's files.
func (p palette) action(a workspace.Action) string {
	code := ansiPlain
	switch a {
	case workspace.ActCreate, workspace.ActRestore:
		code = ansiGreen
	case workspace.ActUpdate, workspace.ActDrift, workspace.ActWarning, workspace.ActSkip:
		code = ansiYellow
	case workspace.ActDelete, workspace.ActConflict:
		code = ansiRed
	}
	return p.paint(code, string(a))
}

// status paints an agent's sync status.
func (p palette) status(s string) string {
	code := ansiPlain
	switch s {
	case workspace.Synced:
		code = ansiGreen
	case workspace.OutOfSync:
		code = ansiYellow
	case workspace.Missing:
		code = ansiRed
	}
	return p.paint(code, s)
}

// diff paints a unified diff line by line, the way git does.
func (p palette) diff(unified string) string {
	if !p || unified == "" {
		return unified
	}
	var b strings.Builder
	for _, line := range strings.SplitAfter(unified, "\n") {
		if line == "" {
			continue
		}
		body, nl := strings.CutSuffix(line, "\n")
		code := ""
		switch {
		case strings.HasPrefix(body, "+++ "), strings.HasPrefix(body, "--- "):
			code = "\x1b[1m"
		case strings.HasPrefix(body, "@@"):
			code = ansiCyan
		case strings.HasPrefix(body, "+"):
			code = ansiGreen
		case strings.HasPrefix(body, "-"):
			code = ansiRed
		}
		if code == "" {
			b.WriteString(line)
			continue
		}
		b.WriteString(code + body + ansiReset)
		if nl {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
