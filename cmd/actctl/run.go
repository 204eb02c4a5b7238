package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/agentprep"
)

// Exit codes of run and chat (docs/run.md).
const (
	exitRefusal   = 3
	exitMaxTokens = 4
	exitDenied    = 5
	exitTimeout   = 124
	exitSIGINT    = 130
)

// agentFlags are the flags run and chat share.
func agentFlags(defaultTimeout time.Duration) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Usage: "run an ephemeral agent made from `TEMPLATE` (removed afterwards unless --keep)"},
		&cli.BoolFlag{Name: "keep", Usage: "with -t: keep the agent (recorded as an ad-hoc agent) instead of removing it"},
		&cli.StringFlag{Name: "cwd", Usage: "the client's project `DIR` (default: the current directory)"},
		&cli.DurationFlag{Name: "timeout", Value: defaultTimeout, Usage: "cancel, then kill, after `D` (0: never)"},
		&cli.BoolFlag{Name: "approve-all", Usage: "allow every permission request"},
		&cli.BoolFlag{Name: "approve-reads", Usage: "allow read, search, think and fetch tool calls only"},
		&cli.BoolFlag{Name: "deny-all", Usage: "deny every permission request"},
		debugACPFlag(),
		// How long a cancelled turn may take before the backend's group is
		// killed (tests shorten it).
		&cli.DurationFlag{Name: "grace", Value: acpclient.DefaultGrace, Hidden: true},
	}
}

func init() {
	register(&cli.Command{
		Name:      "run",
		Usage:     "one turn with AGENT as its ACP client: materialize, start its backend, prompt, print, exit with the stop reason",
		ArgsUsage: "AGENT [-p TEXT | --prompt-file F | stdin]",
		Flags: append(agentFlags(30*time.Minute),
			&cli.StringFlag{Name: "prompt", Aliases: []string{"p"}, Usage: "the prompt `TEXT`"},
			&cli.StringFlag{Name: "prompt-file", Usage: "read the prompt from `FILE` (- for stdin)"},
		),
		OnUsageError: usageErrors,
		Action:       runCmd,
	})
}

// ruleFlag is the permission rule the flags ask for ("" for none).
func ruleFlag(c *cli.Context) (acpclient.Rule, error) {
	var rule acpclient.Rule
	n := 0
	for flag, r := range map[string]acpclient.Rule{"approve-all": acpclient.AllowAll, "approve-reads": acpclient.AllowReads, "deny-all": acpclient.DenyAll} {
		if c.Bool(flag) {
			rule, n = r, n+1
		}
	}
	if n > 1 {
		return "", usageError("%s: --approve-all, --approve-reads and --deny-all exclude each other", c.Command.Name)
	}
	return rule, nil
}

func runCmd(c *cli.Context) error {
	if c.NArg() > 1 || (c.NArg() == 0 && c.String("template") == "") {
		return runArgsError(c)
	}
	rule, err := ruleFlag(c)
	if err != nil {
		return err
	}
	text, err := readPrompt(c)
	if err != nil {
		return err
	}
	ctx, stop := runContext(c.Duration("timeout"))
	defer stop()
	g := globalsOf(c)
	defer trackRun(g, "run")()
	_, _, err = runTurn(ctx, g, specOf(c, rule, nil), text)
	return err
}

// runTurn is one `actctl run` turn (docs/run.md): prepare the agent,
// start its backend, prompt, print through g, stop. A turn that does not
// end with exit code 0 returns an error carrying the code (withCode).
// name is the agent that ran (for a template, its generated name).
func runTurn(ctx context.Context, g *globals, spec agentSpec, text string) (name string, _ acpclient.Result, _ error) {
	sess, err := openAgentSession(ctx, g, agentprep.VerbRun, spec)
	if err != nil {
		// -o json ends with a summary even when no session started.
		newRunObserver(g).summary(cmp.Or(spec.agent, spec.template), acpclient.Result{}, codeOf(err), err)
		return "", acpclient.Result{}, err
	}
	defer sess.close()
	res, err := sess.client.Prompt(ctx, text)
	code, err := sess.finish(ctx, res, err)
	if code != 0 {
		return sess.p.Agent.Name, res, withCode(code, err)
	}
	return sess.p.Agent.Name, res, nil
}

// agentSession is one run or chat: the prepared agent, its client, and
// the output.
type agentSession struct {
	g      *globals
	verb   agentprep.Verb
	name   string              // the agent's
	p      *agentprep.Prepared // nil for a lease (chat on an agent up holds)
	client *acpclient.Client
	out    *runObserver
	// log receives the backend's stderr: the agent's log file, where
	// proxy sessions log too (nil if it could not be opened).
	log *os.File
	// recorded is closed once the runtime record says the backend runs
	// (nil before it started).
	recorded chan struct{}
}

// agentSpec says which agent a run or chat talks to and how it answers
// permission requests: the command line of run and chat, or the
// arguments of the MCP tool run_agent.
type agentSpec struct {
	agent, template, cwd string
	keep                 bool
	// rule overrides the agent's preset ("" keeps it); ask, if set,
	// replaces the policy.
	rule  acpclient.Rule
	ask   acpclient.AskFunc
	grace time.Duration
	// debug: --debug-acp, a line per ACP message and plugin step.
	debug bool
}

// specOf reads an agentSpec from the flags of run and chat.
func specOf(c *cli.Context, rule acpclient.Rule, ask acpclient.AskFunc) agentSpec {
	return agentSpec{agent: c.Args().First(), template: c.String("template"), cwd: c.String("cwd"), keep: c.Bool("keep"),
		rule: rule, ask: ask, grace: c.Duration("grace"), debug: c.Bool("debug-acp")}
}

// startAgentSession prepares the agent as proxy does (docs/run.md) and
// starts the ACP client on its backend. ask, if set, replaces the policy.
func startAgentSession(ctx context.Context, c *cli.Context, verb agentprep.Verb, rule acpclient.Rule, ask acpclient.AskFunc) (*agentSession, error) {
	return openAgentSession(ctx, globalsOf(c), verb, specOf(c, rule, ask))
}

// openAgentSession is startAgentSession for a spec; output goes to g.
func openAgentSession(ctx context.Context, g *globals, verb agentprep.Verb, spec agentSpec) (*agentSession, error) {
	req := agentprep.Request{Verb: verb, Name: spec.agent, Template: spec.template, Keep: spec.keep}
	p, err := prepare(ctx, g, req, spec.cwd)
	if ue := (*agentprep.UsageError)(nil); errors.As(err, &ue) {
		return nil, withCode(exitUsage, ue.Err)
	}
	if err != nil {
		if cause := context.Cause(ctx); ctx.Err() != nil {
			return nil, withCode(codeOf(cause), fmt.Errorf("%s: %w", verb, cause))
		}
		return nil, err
	}
	a := &agentSession{g: g, verb: verb, name: p.Agent.Name, p: p, out: newRunObserver(g)}
	o, err := a.clientOptions(spec.rule, spec.ask, spec.grace)
	if spec.debug {
		o.Trace, a.out.steps = debugTrace(g), true
	}
	if err == nil {
		a.client, err = acpclient.Start(ctx, o)
	}
	if err != nil {
		a.close()
		if cause := context.Cause(ctx); ctx.Err() != nil {
			return nil, withCode(codeOf(cause), cause)
		}
		return nil, err
	}
	return a, nil
}

// clientOptions configures the ACP client for the prepared agent: its
// backend's acp command, its MCP servers, the permission rule (the flag's,
// else the agent's preset), its log, and its runtime record.
func (a *agentSession) clientOptions(rule acpclient.Rule, ask acpclient.AskFunc, grace time.Duration) (acpclient.Options, error) {
	p, g := a.p, a.g
	o, err := p.Backend(rule)
	if err != nil {
		return acpclient.Options{}, err
	}
	o.Ask, o.Observer, o.Grace = ask, a.out, grace
	o.Warn = func(msg string) {
		fmt.Fprintf(g.Stderr, "actctl: %s: warning: agent %s: %s\n", a.verb, p.Agent.Name, msg)
	}
	o.Note = func(msg string) { g.Note("%s: agent %s: %s", a.verb, p.Agent.Name, msg) }
	if a.log, err = agentprep.OpenLog(p.Agent); err != nil {
		fmt.Fprintf(g.Stderr, "actctl: %s: %v (the backend's stderr is not logged)\n", a.verb, err)
	} else {
		o.BackendStderr = a.log
	}
	o.OnStart = func(pid int) {
		// Written beside the backend's start, not before it (two fsyncs
		// on the way to the first prompt); close waits for it before the
		// record says stopped.
		a.recorded = make(chan struct{})
		go func() {
			defer close(a.recorded)
			if err := p.Running(pid); err != nil {
				fmt.Fprintf(g.Stderr, "actctl: %s: %v\n", a.verb, err)
			}
		}()
	}
	return o, nil
}

// finish prints the summary of a turn and returns its exit code.
func (a *agentSession) finish(ctx context.Context, res acpclient.Result, err error) (int, error) {
	code, err := turnCode(res, err, context.Cause(ctx), ctx.Err() != nil)
	a.out.summary(a.name, res, code, err)
	return code, err
}

// turnCode maps the outcome of a turn to the exit code (docs/run.md).
func turnCode(res acpclient.Result, err, cause error, cancelled bool) (int, error) {
	if cancelled {
		return codeOf(cause), cause
	}
	if err != nil {
		return exitError, err
	}
	switch res.StopReason {
	case "end_turn":
		if res.Permissions.Denied > 0 && res.Permissions.Allowed == 0 {
			return exitDenied, fmt.Errorf("every permission request (%d) was denied", res.Permissions.Denied)
		}
		return exitOK, nil
	case "refusal":
		return exitRefusal, errors.New("the agent refused")
	case "max_tokens", "max_turn_requests":
		return exitMaxTokens, fmt.Errorf("the turn ended: %s", res.StopReason)
	case "cancelled":
		return exitError, errors.New("the agent cancelled the turn on its own")
	}
	return exitError, fmt.Errorf("unknown stop reason %q", res.StopReason)
}

// close stops the backend and marks the agent stopped, or removes an
// ephemeral agent entirely.
func (a *agentSession) close() {
	if a.client != nil {
		a.client.Close()
	}
	if a.recorded != nil {
		<-a.recorded
	}
	if a.log != nil {
		a.log.Close()
	}
	if a.p != nil {
		a.p.Cleanup()
	}
}
