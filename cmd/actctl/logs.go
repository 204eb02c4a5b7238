package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/tasklog"
)

func init() {
	register(&cli.Command{
		Name:      "logs",
		Usage:     "print the task log of an agent run by actctl up: one line per task, or one task's messages",
		ArgsUsage: "AGENT",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing what is logged until interrupted"},
			&cli.Uint64Flag{Name: "task", Usage: "print the messages of task `ID` (raw JSON-RPC lines with -o json)"},
			&cli.BoolFlag{Name: "sessions", Usage: "list the message logs of the agent's proxy and lease sessions"},
			&cli.StringFlag{Name: "session", Usage: "print the messages of the proxy or lease session `NAME` (as --sessions lists it; last: the latest)"},
		},
		OnUsageError: usageErrors,
		Action:       logsCmd,
	})
}

func logsCmd(c *cli.Context) error {
	if globalsOf(c).Kube.On {
		return kubeLogs(c)
	}
	g, _, r, err := oneAgent(c)
	if err != nil {
		return err
	}
	dir := tasklog.Dir(r)
	if c.Bool("follow") {
		// Following needs the up that writes the logs (docs/runtime.md).
		if err := callUp(context.Background(), g, control.Request{Op: control.OpStatus}, nil, nil); err != nil {
			return err
		}
	}
	if c.Bool("sessions") {
		return logsSessions(g, dir)
	}
	if c.IsSet("session") {
		p, err := tasklog.SessionFile(dir, c.String("session"))
		if err != nil {
			return fmt.Errorf("logs %s: %w", r.Name, err)
		}
		return logsTask(g, p, c.Bool("follow"))
	}
	if c.IsSet("task") {
		p, err := tasklog.TaskFile(dir, c.Uint64("task"))
		if err != nil {
			return fmt.Errorf("logs %s: %w", r.Name, err)
		}
		return logsTask(g, p, c.Bool("follow"))
	}
	path := tasklog.SummaryPath(dir)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(g.Stderr, "no tasks logged for %s yet (tasks are logged by actctl up)\n", r.Name)
		if !c.Bool("follow") {
			return nil
		}
	}
	s := &summaryPrinter{g: g, path: path}
	read := eachLine
	if c.Bool("follow") {
		read = follow
	}
	if err := read(path, s.line); err != nil {
		return err
	}
	return s.err
}

// logsSessions lists the session logs of the logs directory dir, oldest
// first: one name a line (the name --session takes), or with -o json
// their names and paths.
func logsSessions(g *globals, dir string) error {
	names, err := tasklog.Sessions(dir)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		fmt.Fprintf(g.Stderr, "no sessions logged in %s yet (actctl proxy and proxy --lease log them)\n", tasklog.SessionsDir(dir))
	}
	for _, n := range names {
		name := strings.TrimSuffix(n, ".jsonl")
		if g.JSON() {
			g.PrintCompactJSON(map[string]string{"session": name, "path": filepath.Join(tasklog.SessionsDir(dir), n)})
			continue
		}
		fmt.Fprintln(g.Stdout, termsafe.Line(name))
	}
	return nil
}

// follow passes every line of path to fn, the ones there now and the ones
// appended later, until SIGINT or SIGTERM (then it returns nil: following
// ends by being interrupted).
func follow(path string, fn func([]byte)) error {
	ctx, _, stop := onSignals(cancelPolicy)
	defer stop()
	return tasklog.Follow(ctx, path, 0, fn)
}

// eachLine passes every complete line of path to fn (a last line still
// being written is left out, as Follow leaves it until it is complete).
func eachLine(path string, fn func([]byte)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("logs: %w", err)
	}
	for line := range bytes.Lines(data) {
		if l, ok := bytes.CutSuffix(line, []byte("\n")); ok {
			fn(l)
		}
	}
	return nil
}

// summaryPrinter prints actctl.log: a line per task, or with -o json the
// summaries as JSON lines. A malformed line is reported with its number
// and skipped; err keeps the first one, so that the command fails once
// everything else is printed.
type summaryPrinter struct {
	g    *globals
	path string
	n    int // lines seen
	err  error
}

func (s *summaryPrinter) line(l []byte) {
	s.n++
	if len(bytes.TrimSpace(l)) == 0 {
		return
	}
	sum, err := tasklog.ParseSummary(l)
	if err != nil {
		err = fmt.Errorf("%s:%d: %w", s.path, s.n, err)
		s.g.Warn("%v", err)
		if s.err == nil {
			s.err = err
		}
		return
	}
	if s.g.JSON() {
		s.g.PrintCompactJSON(sum)
		return
	}
	fmt.Fprintln(s.g.Stdout, summaryLine(sum, time.Local))
}

// summaryLine is a task's line in text, its end time in loc:
// TIME  #ID  KIND(SOURCE)  STOPREASON|error  DURATION  first line of prompt.
func summaryLine(s tasklog.Summary, loc *time.Location) string {
	kind := s.Kind
	if s.Source != "" && s.Source != s.Kind {
		kind += "(" + s.Source + ")"
	}
	end := s.StopReason
	if s.Error != "" {
		end = "error: " + firstLine(s.Error)
	}
	d := time.Duration(s.DurationMs) * time.Millisecond
	if d >= time.Second {
		d = d.Round(100 * time.Millisecond)
	}
	return fmt.Sprintf("%s  #%-4d %-16s %-12s %8s  %s", s.Time.In(loc).Format("2006-01-02 15:04:05"),
		s.Task, termsafe.Line(kind), termsafe.Line(end), d, termsafe.Line(firstLine(s.Prompt)))
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// logsTask prints the messages of the task file p: rendered for reading,
// or with -o json the JSON-RPC lines as received.
func logsTask(g *globals, p string, following bool) error {
	fn := func(l []byte) { g.Stdout.Write(append(append([]byte(nil), l...), '\n')) }
	if !g.JSON() {
		tr := newTaskRenderer(g.Stdout)
		fn = tr.line
		defer tr.end()
	}
	if following {
		return follow(p, fn)
	}
	return eachLine(p, fn)
}
