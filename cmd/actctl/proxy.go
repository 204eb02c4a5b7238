package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/employee"
	"github.com/actctl/actctl/internal/rpcpeer"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/plugin"
	"github.com/actctl/actctl/proxy"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

func init() {
	register(&cli.Command{
		Name:      "proxy",
		Usage:     "serve AGENT as an ACP agent on stdio (for Zed): materialize it, start its backend, relay",
		ArgsUsage: "AGENT",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "template", Aliases: []string{"t"}, Usage: "create AGENT from `TEMPLATE` when it is not declared"},
			&cli.StringFlag{Name: "cwd", Usage: "the client's project `DIR` (default: the current directory, which Zed sets to the project)"},
			&cli.BoolFlag{Name: "lease", Usage: "lease sessions on the warm AGENT that the running actctl up holds, instead of starting a backend"},
			debugACPFlag(),
		},
		OnUsageError: usageErrors,
		Action:       proxyCmd,
	})
}

func proxyCmd(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() != 1 {
		return usageError("proxy: want exactly one AGENT")
	}
	// A vanished client must not kill us before we kill the backend's group.
	signal.Ignore(syscall.SIGPIPE)
	ctx, _, cancel := onSignals(relayPolicy)
	defer cancel()
	if g.Kube.On && !c.Bool("lease") {
		return usageError("proxy: --kube goes with --lease: a pod's warm agent")
	}
	if c.Bool("lease") {
		if c.IsSet("template") {
			return usageError("proxy: --lease serves a declared agent that actctl up runs; -t does not go with it")
		}
		return proxyLease(ctx, g, c.Args().First(), traceIf(c.Bool("debug-acp"), g))
	}

	req := agentprep.Request{Verb: agentprep.VerbProxy, Name: c.Args().First(), Template: c.String("template"),
		Holder: func(r *schema.Resolved) (string, string) { return upHolder(ctx, g, r.Name) }}
	p, err := prepare(ctx, g, req, c.String("cwd"))
	if err != nil {
		return refuse(ctx, g, err)
	}
	return serve(ctx, g, p, c.Bool("debug-acp"))
}

// upHoldBound bounds the status request asking the running up whether
// it holds an agent a proxy is about to copy.
const upHoldBound = 5 * time.Second

// upHolder says, for the note of a live agent's ephemeral copy, whether
// the running actctl up holds r, and that --lease would share its warm
// process instead of starting another (docs/runtime.md, "Session
// leases"); "" when no up holds it (another proxy, run or chat does).
func upHolder(ctx context.Context, g *globals, agent string) (who, instead string) {
	root, err := upRoot(g)
	if err != nil {
		return "", ""
	}
	cl, err := control.Dial(root)
	if err != nil {
		return "", ""
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(ctx, upHoldBound)
	defer cancel()
	final, err := cl.Do(ctx, control.Request{Op: "status"}, func(control.Frame) {})
	var held []up.AgentStatus
	if err != nil || final.Error != "" || json.Unmarshal(final.Result, &held) != nil {
		return "", ""
	}
	for _, a := range held {
		if a.Name == agent {
			return "actctl up", fmt.Sprintf("`actctl proxy %s --lease` shares its warm process instead", agent)
		}
	}
	return "", ""
}

// refuse reports err, once, and gives the editor, which is waiting for an
// answer to initialize, the reason rather than a closed pipe.
func refuse(ctx context.Context, g *globals, err error) error {
	printError(g.Stderr, err)
	proxy.Refuse(ctx, proxy.Refused{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: g.Stderr}, "actctl proxy: "+err.Error())
	return withCode(exitError, nil)
}

// prepare prepares the agent of req for a client whose project is cwd
// (--cwd, else ours): agentprep.Prepare, with the config of the command
// line and its cache saved once a lasting agent is materialized.
func prepare(ctx context.Context, g *globals, req agentprep.Request, cwd string) (*agentprep.Prepared, error) {
	clientDir, err := agentprep.ClientProject(cwd)
	if err != nil {
		return nil, err
	}
	g.OnlyAgent = req.Name // warnings about other agents are not this client's
	cfg, err := g.Load()
	if err != nil {
		return nil, err
	}
	req.ClientDir = clientDir
	return agentprep.Prepare(ctx, cfg, req, agentprep.Options{Stderr: g.Stderr, Materialized: g.saveConfig})
}

// serve relays between the editor on stdio and the backend of the
// prepared agent until either goes away, then cleans up; debug traces
// every message (--debug-acp).
func serve(ctx context.Context, g *globals, p *agentprep.Prepared, debug bool) error {
	var set *plugin.Set
	l, err := p.Launch(schema.ModeACP)
	if err == nil {
		set, err = p.Plugins()
	}
	if err != nil {
		p.Cleanup()
		return refuse(ctx, g, err)
	}
	msgs := proxyLog{g: g}
	if !p.Ephemeral { // an ephemeral copy's logs go with it
		msgs = sessionLog(g, p.Agent)
	}
	err = proxy.Run(ctx, proxy.Options{
		Command: l.Command, Args: l.Args, Env: append(os.Environ(), l.EnvList()...),
		ProcessCwd: l.Cwd, SessionCwd: l.SessionCwd, Workspace: l.Workspace, InstallHint: l.Install,
		Mode:  acpclient.ModeFor(p.Agent.Permissions),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: g.Stderr,
		LogFile:    runrecord.LogPath(p.Agent),
		Hooks:      set.Hooks(ctx, plugin.RelayOptions{Step: proxyStep(g, msgs.w)}),
		Trace:      traceIf(debug, g),
		MessageLog: msgs.sink(),
		OnStart: func(pid int) {
			if err := p.Running(pid); err != nil {
				fmt.Fprintf(g.Stderr, "actctl: proxy: %v\n", err)
			}
		},
	})
	msgs.close()
	p.Cleanup()
	var pe *proxy.Error
	if errors.As(err, &pe) {
		return withCode(exitError, nil) // proxy.Run has reported it
	}
	return err
}

// proxyStep shows a plugin step of a proxy session on stderr (the
// editor's log of the agent): sizes and the outcome, never the text
// (docs/plugins.md, "On the proxy").
// A step is recorded in the session's message log w too (nil: none).
func proxyStep(g *globals, w *tasklog.Writer) func(string, acpclient.PluginStep) {
	return func(sid string, p acpclient.PluginStep) {
		fmt.Fprintf(g.Stderr, "actctl proxy: session %s: %s\n", termsafe.Line(sid), termsafe.Line(employee.PluginStep(p).Words()))
		if w != nil {
			w.Plugin(employee.PluginStep(p))
		}
	}
}

// proxyLog is a proxy session's message log (docs/plugins.md, "What the
// logs record"); w nil: none.
type proxyLog struct {
	g *globals
	w *tasklog.Writer
}

// sessionLog opens the message log of this proxy session of agent r, in
// its logs directory beside its task logs, and says where on stderr; one
// that cannot be opened is a warning, the session goes on unlogged.
func sessionLog(g *globals, r *schema.Resolved) proxyLog {
	dir := tasklog.Dir(r)
	w, err := tasklog.BeginSession(dir, time.Now(), fmt.Sprintf("proxy-%d", os.Getpid()))
	if err != nil {
		fmt.Fprintf(g.Stderr, "actctl proxy: warning: %v (this session's messages are not logged)\n", err)
		return proxyLog{g: g}
	}
	fmt.Fprintf(g.Stderr, "actctl proxy: this session's messages are logged in %s (actctl logs %s --session %s)\n",
		termsafe.Line(w.Path()), termsafe.Line(r.Name), termsafe.Line(strings.TrimSuffix(filepath.Base(w.Path()), ".jsonl")))
	return proxyLog{g: g, w: w}
}

// sink is proxy.Options.MessageLog: nil when there is no log.
func (l proxyLog) sink() func([]byte) {
	if l.w == nil {
		return nil
	}
	return l.w.Message
}

func (l proxyLog) close() {
	if l.w == nil {
		return
	}
	if err := l.w.Close(); err != nil {
		fmt.Fprintf(l.g.Stderr, "actctl proxy: warning: %v\n", err)
	}
}

// debugACPFlag is --debug-acp of proxy, run and chat (docs/plugins.md,
// "Diagnostics").
func debugACPFlag() cli.Flag {
	return &cli.BoolFlag{Name: "debug-acp", EnvVars: []string{"ACTCTL_DEBUG_ACP"},
		Usage: "a line on stderr per ACP message (direction, method, session, tool kind, size, time) and plugin step, never their text"}
}

// debugTrace is the --debug-acp trace, on stderr.
func debugTrace(g *globals) *rpcpeer.Trace { return &rpcpeer.Trace{W: g.Stderr} }

// traceIf is debugTrace when debug is set (nil: no trace).
func traceIf(debug bool, g *globals) *rpcpeer.Trace {
	if !debug {
		return nil
	}
	return debugTrace(g)
}
