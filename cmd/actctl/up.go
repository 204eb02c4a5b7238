package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync/atomic"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/dashboard"
	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/mcpserver"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/supervise"
	"github.com/actctl/actctl/up"
	"github.com/actctl/actctl/upserve"
	"github.com/actctl/actctl/watch"
	"github.com/actctl/actctl/workspace"
)

func init() {
	register(&cli.Command{
		Name:      "up",
		Usage:     "run the workspace's service and employee agents in the foreground: keep their files applied, restart them, run their schedules, take start/stop/prompt (Ctrl-C stops all)",
		ArgsUsage: "[AGENT...]",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "frozen", Usage: "fail instead of changing actant.lock"},
			&cli.DurationFlag{Name: "debounce", Value: watch.DefaultDebounce, Usage: "quiet window before a re-apply"},
			// How long a stopping agent gets before its group is killed
			// (tests shorten it).
			&cli.DurationFlag{Name: "grace", Value: acpclient.DefaultGrace, Hidden: true},
			// The start bound and the turn grace of a restart (docs/runtime.md, "Supervision";
			// tests shorten them).
			&cli.DurationFlag{Name: "start-timeout", Value: supervise.DefaultStartTimeout, Hidden: true},
			&cli.DurationFlag{Name: "turn-grace", Value: up.DefaultTurnGrace, Hidden: true},
			&cli.StringFlag{Name: "webhooks", Usage: "serve the workspace's webhooks (POST /webhooks/NAME) on `ADDR` (host:port; off by default; may face the network)"},
			uiFlags[0], uiFlags[1],
		},
		OnUsageError: usageErrors,
		Action:       upCmd,
	})
}

// upCmd is `actctl up`: its flags, signals, log and exit code around
// upserve, which runs the agents.
func upCmd(c *cli.Context) error {
	g := globalsOf(c)
	names := c.Args().Slice()
	g.Acts = func(cfg *schema.Config) []string { return upserve.Acts(cfg, names) }
	cfg, err := g.Load()
	if err != nil {
		return err
	}
	if err := upserve.CheckNames(cfg, names); err != nil {
		return err
	}
	warnMissingSecrets(g, cfg, upserve.Held(cfg, names))
	ui, err := parseUI(c)
	if err != nil {
		return err
	}
	addr, err := webhooksAddr(c)
	if err != nil {
		return err
	}
	logf := upLogf(g)
	g.loops = hooks.NewGuard(hooks.MaxChain, func(msg string) { g.Warn("%s", msg) })
	o := upOptions(c, g, names, logf)
	o.Settled = func() { workspace.RefreshInputs(g.workspace(), cfg.Root, cfg.Home) }
	if d := g.workspace().Debug; d != nil {
		o.Released = func() { fmt.Fprintln(d, "actctl: debug: up: memory given back to the system") }
	}
	s := upserve.New(o)
	defer s.Close()
	if err := s.ListenWebhooks(addr, cfg); err != nil {
		return err
	}
	owner, err := control.Acquire(cfg.Root)
	if err != nil {
		return err
	}
	defer owner.Close()
	ln, err := owner.Listen()
	if err != nil {
		return err
	}
	untrack, err := trackProcesses(cfg.Root, cfg.Home, true, logf)
	if err != nil {
		return err
	}
	defer untrack() // after the hooks (s.Run): their children go too
	policy, forced := upSignals(s, logf)
	ctx, cancel, stopSignals := onSignals(policy)
	defer stopSignals()
	guardStderr(g, s, cancel)
	g.prompter = s.Prompter()
	err = s.Run(ctx, upserve.Serve{Config: cfg, Control: ln, Owner: owner, UI: ui, Watch: upWatch(c, g, cfg.Root)})
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	if sig := forced.Load(); sig != nil {
		logf("stopped at once")
		return withCode(signalExit(*sig), fmt.Errorf("up: a second %s killed every agent's process group", signalName(*sig)))
	}
	logf("stopped")
	return nil
}

// upSignals is up's signal policy: a first signal stops every agent
// gracefully (turns get their grace, agents SIGTERM and theirs), a
// second kills every agent's process group at once (docs/runtime.md,
// "actctl up"); forced is that second signal, once it came.
func upSignals(s *upserve.Server, logf func(string, ...any)) (policy signalPolicy, forced *atomic.Pointer[os.Signal]) {
	forced = &atomic.Pointer[os.Signal]{}
	stopping := func(sig os.Signal) {
		logf("%s received: stopping every agent (send it again to kill them at once)", signalName(sig))
		s.Stopping(signalName(sig))
	}
	force := func(sig os.Signal) {
		forced.Store(&sig)
		logf("%s received again: killing every agent's process group now", signalName(sig))
		s.Force()
	}
	return gracefulPolicy(stopping, force), forced
}

// upWatch is up's watch loop: apply --watch's on root, each cycle's
// config and changed files handed to up.
func upWatch(c *cli.Context, g *globals, root string) upserve.WatchFunc {
	return func(ctx context.Context, after func(*schema.Config, map[string][]string)) error {
		return watchApply(ctx, c, g, root, func(cfg *schema.Config, res *workspace.Result, err error) {
			after(cfg, cycleChanges(res, err))
		})
	}
}

// upOptions are the parts of the other commands up shows: describe's
// text, get hooks' rows, a run turn.
func upOptions(c *cli.Context, g *globals, names []string, logf func(string, ...any)) upserve.Options {
	return upserve.Options{Names: names, Grace: c.Duration("grace"), StartTimeout: c.Duration("start-timeout"), TurnGrace: c.Duration("turn-grace"),
		Logf: logf, Warn: g.Warn, Loops: g.loops, Report: func(r hooks.Result) { reportHook(g, r) },
		RunTurn: func(ctx context.Context, root string, t mcpserver.Turn, reply, log io.Writer) (mcpserver.TurnResult, error) {
			return mcpRunner{root: root, home: g.Home}.Run(ctx, t, reply, log)
		},
		Describe: func(cfg *schema.Config, name string, st up.AgentStatus) (string, []dashboard.File) {
			return upDescribe(g, cfg, name, st)
		},
		HookRows: upHookRows}
}

// cycleChanges is, per agent, the files a watch cycle's apply changed
// (nil when it failed).
func cycleChanges(res *workspace.Result, err error) map[string][]string {
	if err != nil || res == nil {
		return nil
	}
	return workspace.ChangedFiles(res)
}

// upDescribe is describe's text of an agent up runs, with up's status,
// and its files, for the dashboard's agent page.
func upDescribe(g *globals, cfg *schema.Config, name string, st up.AgentStatus) (string, []dashboard.File) {
	gd := *g
	var buf bytes.Buffer
	gd.Stdout = &buf
	withUp := func(sts []agentStatusJSON) {
		for i := range sts {
			sts[i].Process = upProcess(st)
		}
	}
	var files []dashboard.File
	if dj, err := describe(&gd, cfg, name, withUp); err == nil {
		_ = printDescribe(&gd, dj)
		for _, f := range dj.Files {
			files = append(files, dashboard.File{Path: f.Path, Mode: f.Mode, State: f.State})
		}
	} else {
		fmt.Fprintf(&buf, "describe: %v\n", err)
	}
	return buf.String(), files
}

// upHookRows are the hooks up runs as `actctl get hooks` lists them: the
// config's, then the employees' subscriptions.
func upHookRows(cfg *schema.Config, subs []hooks.Subscription) [][]string {
	var rows [][]string
	if cfg != nil {
		_, rows, _ = listHooks(cfg)
	}
	for _, sub := range subs {
		rows = append(rows, hookRow(subscriptionJSON(sub)))
	}
	return rows
}

// upLogf prints one of up's log lines; they quote agents (their errors,
// their stderr), so control characters are escaped (internal/termsafe).
func upLogf(g *globals) func(string, ...any) {
	return func(format string, args ...any) {
		fmt.Fprintf(g.Stderr, "actctl: up: %s\n", termsafe.Text(fmt.Sprintf(format, args...)))
	}
}

// uiFlags are up's dashboard flags (docs/dashboard.md).
var uiFlags = []cli.Flag{
	&cli.StringFlag{Name: "ui", Value: "127.0.0.1:0", Usage: "serve the dashboard on `ADDR` (a loopback address; port 0: a free one), or \"off\""},
	&cli.BoolFlag{Name: "ui-allow-remote", Usage: "let --ui listen on an address other machines reach (the token in the URL is then the only guard)"},
}

// parseUI checks --ui before anything runs: a non-loopback address
// needs --ui-allow-remote. Off is nil.
func parseUI(c *cli.Context) (*upserve.UIPlan, error) {
	addr := c.String("ui")
	if addr == "off" {
		return nil, nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, usageError("up: --ui %q: want HOST:PORT (127.0.0.1:0) or off: %v", addr, err)
	}
	p := &upserve.UIPlan{Addr: addr, Host: host}
	switch ip := net.ParseIP(host); {
	case host == "localhost" || (ip != nil && ip.IsLoopback()):
		if ip == nil {
			p.Host = "127.0.0.1"
		}
	case !c.Bool("ui-allow-remote"):
		return nil, usageError("up: --ui %s is not a loopback address: other machines could reach the dashboard; add --ui-allow-remote to mean it (the token is then the only guard)", addr)
	default:
		p.Remote = true
		if host == "" || (ip != nil && ip.IsUnspecified()) {
			p.Host = "127.0.0.1"
		}
	}
	return p, nil
}

// webhooksAddr is --webhooks: "" when off; an address that is no
// HOST:PORT is a usage error.
func webhooksAddr(c *cli.Context) (string, error) {
	addr := c.String("webhooks")
	if addr == "" {
		return "", nil
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return "", usageError("up: --webhooks %q: want HOST:PORT (127.0.0.1:8787, or 0.0.0.0:8787 for other machines): %v", addr, err)
	}
	return addr, nil
}
