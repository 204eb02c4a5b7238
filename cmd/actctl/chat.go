package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/up"
)

func init() {
	register(&cli.Command{
		Name:      "chat",
		Usage:     "talk with AGENT in one ACP session: each line on stdin (a terminal or a pipe) is a turn",
		ArgsUsage: "AGENT [--resume [ID] | --list]",
		Flags: append(agentFlags(0),
			&cli.BoolFlag{Name: "resume", Usage: "on an agent actctl up runs: resume your session `ID` (the second argument; without it, your only one)"},
			&cli.BoolFlag{Name: "list", Usage: "on an agent actctl up runs: list your sessions (id and cwd)"}),
		OnUsageError: usageErrors,
		Action:       chatCmd,
	})
}

func chatCmd(c *cli.Context) error {
	if c.NArg() > 2 || (c.NArg() == 0 && c.String("template") == "") {
		return usageError("chat: want AGENT, or -t TEMPLATE [AGENT]")
	}
	rule, err := ruleFlag(c)
	if err != nil {
		return err
	}
	g := globalsOf(c)
	lines := readLines(os.Stdin)
	terminal := isTerminal(os.Stdin)
	var ask acpclient.AskFunc
	if terminal && rule == "" {
		// A person is there: ask them (flags still decide when given).
		ask = (&asker{lines: lines, w: g.Stderr, always: map[acpclient.ToolKind]bool{}, deadline: askDeadline}).ask
	}
	ctx, stop := runContext(c.Duration("timeout"))
	defer stop()
	defer trackRun(g, "chat")()
	sess, leased, err := chatLease(ctx, c, g, rule, ask)
	if err == nil && !leased {
		if c.NArg() > 1 {
			return usageError("chat: want AGENT, or -t TEMPLATE [AGENT]")
		}
		sess, err = startAgentSession(ctx, c, agentprep.VerbChat, rule, ask)
	}
	if err != nil || sess == nil { // sess nil: --list printed
		return err
	}
	defer sess.close()
	code, err := sess.chat(ctx, lines, terminal)
	if code != 0 {
		return withCode(code, err)
	}
	return nil
}

// chat runs one turn per non-empty line until EOF and returns the last
// turn's exit code (its reason was printed with the turn); a turn the
// agent answered with an error is reported and the next line read, while
// a backend that crashed, a timeout or a signal ends it at once.
func (a *agentSession) chat(ctx context.Context, lines <-chan string, terminal bool) (int, error) {
	code := exitOK
	for {
		if terminal {
			fmt.Fprint(a.g.Stderr, "> ")
		}
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-ctx.Done():
			return codeOf(context.Cause(ctx)), context.Cause(ctx)
		}
		if !ok {
			return code, nil
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		res, perr := a.client.Prompt(ctx, line)
		var err error
		code, err = a.finish(ctx, res, perr)
		if ctx.Err() != nil || (code == exitError && !answered(perr)) {
			return code, err
		}
		if err != nil {
			fmt.Fprintf(a.g.Stderr, "actctl: chat: %s\n", termsafe.Text(err.Error()))
		}
	}
}

// answered reports whether err is the agent's error answer to a turn,
// its backend still running (acpclient.ErrAnswered).
func answered(err error) bool {
	var e *acpclient.Error
	return errors.As(err, &e) && e.Kind == acpclient.ErrAnswered
}

// readLines sends r's lines on the returned channel, closed at EOF.
func readLines(r io.Reader) <-chan string {
	ch := make(chan string)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			ch <- sc.Text()
		}
	}()
	return ch
}

// asker asks the person at the terminal about permission requests:
// y(es), n(o) or a(lways); "always" is remembered for the tool kind for
// the rest of the session.
type asker struct {
	lines  <-chan string
	w      io.Writer
	mu     sync.Mutex
	always map[acpclient.ToolKind]bool
	// deadline, if set, gives each request's deadline, after which the
	// agent's preset answers it (acpclient.ErrNoAnswer).
	deadline func() <-chan time.Time
}

// askDeadline is how long chat waits for the person's answer:
// up.DefaultAskWait, as a dashboard conversation does.
func askDeadline() <-chan time.Time { return time.After(up.DefaultAskWait) }

func (a *asker) ask(ctx context.Context, call acpclient.ToolCall, options []acpclient.PermissionOption) (acpclient.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.always[call.Kind] {
		return acpclient.Choose(true, true, options), nil
	}
	var timeout <-chan time.Time
	if a.deadline != nil {
		timeout = a.deadline()
	}
	for {
		fmt.Fprintf(a.w, "allow %s (%s)? [y/n/always] ", termsafe.Line(call.Title), termsafe.Line(kindName(call.Kind)))
		var line string
		var ok bool
		select {
		case line, ok = <-a.lines:
		case <-ctx.Done():
			fmt.Fprintln(a.w)
			return acpclient.Decision{}, ctx.Err()
		case <-timeout:
			fmt.Fprintln(a.w, "\n"+noAnswer(call))
			return acpclient.Decision{}, acpclient.ErrNoAnswer
		}
		if !ok {
			return acpclient.Decision{}, errors.New("stdin closed")
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return acpclient.Choose(true, false, options), nil
		case "n", "no":
			return acpclient.Choose(false, false, options), nil
		case "a", "always":
			a.always[call.Kind] = true
			return acpclient.Choose(true, true, options), nil
		}
	}
}

// noAnswer says who decides a question not answered in time: the
// preset, or, when the agent's ask rule asked it, nobody: it is rejected.
func noAnswer(call acpclient.ToolCall) string {
	if call.AskedByRule() {
		return "no answer in time: rejected (the agent's permission rule " + termsafe.Line(call.Matched) + " wants a person's yes)"
	}
	return "no answer in time: the agent's preset decides"
}

func kindName(k acpclient.ToolKind) string {
	if k == "" {
		return "other"
	}
	return string(k)
}
