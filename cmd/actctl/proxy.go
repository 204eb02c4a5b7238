package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/agentprep"
	"github.com/actctl/actctl/proxy"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
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
		},
		OnUsageError: usageErrors,
		Action:       proxyCmd,
	})
}

// proxySession is one `actctl proxy` run: which agent serves the client
// (agentprep.Choose), and what to undo when the client goes away.
type proxySession struct {
	g         *globals
	cfg       *schema.Config
	clientDir string
	*agentprep.Choice
	log io.Writer
}

func proxyCmd(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() != 1 {
		return usageError("proxy: want exactly one AGENT")
	}
	// A vanished client must not kill us before we kill the backend's group.
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel := signal.NotifyContext(context.Background(), proxy.Signals...)
	defer cancel()
	if c.Bool("lease") {
		if c.IsSet("template") {
			return usageError("proxy: --lease serves a declared agent that actctl up runs; -t does not go with it")
		}
		return proxyLease(ctx, g, c.Args().First())
	}

	s, err := newProxySession(ctx, g, c.Args().First(), c.String("template"), c.String("cwd"))
	if err != nil {
		return refuse(ctx, g, err)
	}
	return s.serve(ctx)
}

// refuse reports err, once, and gives the editor, which is waiting for an
// answer to initialize, the reason rather than a closed pipe.
func refuse(ctx context.Context, g *globals, err error) error {
	printError(g.Stderr, err)
	proxy.Refuse(ctx, proxy.Refused{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: g.Stderr}, "actctl proxy: "+err.Error())
	return withCode(exitError, nil)
}

func newProxySession(ctx context.Context, g *globals, name, template, cwd string) (*proxySession, error) {
	clientDir, err := clientProject(cwd)
	if err != nil {
		return nil, err
	}
	g.OnlyAgent = name // warnings about other agents are not this session's
	cfg, err := g.Load()
	if err != nil {
		return nil, err
	}
	s := &proxySession{g: g, cfg: cfg, clientDir: clientDir, log: g.Stderr}
	if err := s.choose(agentprep.Request{Verb: "proxy", Name: name, Template: template, ClientDir: clientDir}); err != nil {
		return nil, err
	}
	if err := s.materializeAgent(ctx, "proxy"); err != nil {
		s.cleanup()
		return nil, err
	}
	return s, nil
}

// choose decides which copy of the agent serves the client
// (agentprep.Choose), saying so when it is an ephemeral copy.
func (s *proxySession) choose(req agentprep.Request) error {
	req.Live = func(r *schema.Resolved) (bool, error) {
		rec, err := proxy.ReadRecord(proxy.RecordPath(r))
		return rec.Live(), err
	}
	c, err := agentprep.Choose(s.cfg, req)
	if err != nil {
		return err
	}
	s.Choice = c
	if c.Note != "" {
		fmt.Fprintf(s.g.Stderr, "actctl: %s\n", c.Note)
	}
	return nil
}

// warn prints the apply warnings about the served agent (apply renders,
// and warns about, every agent), at the position of what it comes from:
// its declaration, the declared agent of a per-project copy, the template
// of a -t agent.
func (s *proxySession) warn(warnings []string) {
	marker := "warning: agents." + s.Agent.Name + ": "
	for _, w := range warnings {
		if i := strings.Index(w, marker); i >= 0 {
			d := schema.Diagnostic{Pos: s.cfg.Pos(s.Origin), Path: "agents." + s.Agent.Name, Message: w[i+len(marker):], Warning: true}
			fmt.Fprintf(s.g.Stderr, "actctl: %s\n", d)
		}
	}
}

// materializeAgent applies the session's agent (unless it shares a live
// agent's files); verb names the command in the summary line.
func (s *proxySession) materializeAgent(ctx context.Context, verb string) error {
	if s.Shared {
		return nil
	}
	g := s.g
	res, err := reconcile.Apply(ctx, s.cfg, reconcile.Options{Only: []string{s.Agent.Name}, NoPrune: true, LockWait: 10 * time.Second})
	if res != nil {
		s.warn(res.Warnings)
	}
	if err != nil {
		return fmt.Errorf("materialize %s: %w", s.Agent.Name, err)
	}
	if u := s.Adhoc; u != nil {
		if err := recordAdhoc(ctx, s.cfg.Root, u.Name, &u.Agent); err != nil {
			return fmt.Errorf("materialize %s: record the agent: %w", u.Name, err)
		}
		s.Adhoc = nil
	}
	if res.Counts.Changed > 0 { // an agent already applied starts in silence
		fmt.Fprintf(g.Stderr, "actctl: %s %s: %s (%s)\n", verb, s.Agent.Name, res.Summary(), s.Agent.Dir)
	}
	if !s.Ephemeral {
		// An ephemeral agent leaves nothing behind, the cache included.
		g.saveConfig()
	}
	return nil
}

// clientProject is the client's project directory: --cwd, else our cwd.
func clientProject(cwd string) (string, error) {
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		cwd = wd
	}
	abs, err := filepath.Abs(cwd)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("client project %s is not a directory", abs)
	}
	return abs, nil
}

func (s *proxySession) serve(ctx context.Context) error {
	l, err := proxy.Resolve(s.Agent, schema.ModeACP)
	if err != nil {
		s.cleanup()
		return refuse(ctx, s.g, err)
	}
	record := proxy.RecordPath(s.Agent)
	err = proxy.Run(ctx, proxy.Options{
		Command: l.Command, Args: l.Args, Env: append(os.Environ(), l.EnvList()...),
		ProcessCwd: l.Cwd, SessionCwd: l.SessionCwd, Workspace: l.Workspace, InstallHint: l.Install,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: s.g.Stderr,
		LogFile: proxy.LogPath(s.Agent),
		OnStart: func(pid int) {
			if err := proxy.UpdateRecord(record, map[string]any{
				"processOwnership": proxy.OwnershipManaged, "status": "running", "pid": pid,
			}); err != nil {
				fmt.Fprintf(s.g.Stderr, "actctl: proxy: %v\n", err)
			}
		},
	})
	s.cleanup()
	var pe *proxy.Error
	if errors.As(err, &pe) {
		return withCode(exitError, nil) // proxy.Run has reported it
	}
	return err
}

// cleanup marks the agent stopped, or removes an ephemeral copy entirely,
// or an ad-hoc agent that never materialized.
func (s *proxySession) cleanup() {
	if u := s.Adhoc; u != nil {
		s.Adhoc = nil
		if u.Fresh {
			s.discard()
			return
		}
	}
	record := proxy.RecordPath(s.Agent)
	if !s.Ephemeral {
		if _, err := os.Stat(record); err == nil {
			if err := proxy.UpdateRecord(record, map[string]any{"status": "stopped", "pid": nil}); err != nil {
				fmt.Fprintf(s.g.Stderr, "actctl: proxy: %v\n", err)
			}
		}
		return
	}
	if s.Shared {
		os.Remove(record)
		return
	}
	delete(s.cfg.Agents, s.Agent.Name)
	// Pruning the copy needs a fresh context: the session's may be
	// cancelled by the signal that ended it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := reconcile.Apply(ctx, s.cfg, reconcile.Options{Only: []string{s.Agent.Name}, LockWait: 5 * time.Second}); err != nil {
		fmt.Fprintf(s.g.Stderr, "actctl: proxy: remove ephemeral %s: %v\n", s.Agent.Name, err)
	}
	if err := proxy.RemoveRuntime(s.Agent); err != nil {
		fmt.Fprintf(s.g.Stderr, "actctl: proxy: remove ephemeral %s: %v\n", s.Agent.Name, err)
	}
}

// applyPruning is reconcile.Apply that also removes the runtime record and
// proxy log of every agent it prunes (proxy.RemovePrunedRuntime), as
// delete does.
func applyPruning(ctx context.Context, cfg *schema.Config, o reconcile.Options) (*reconcile.Result, error) {
	res, err := reconcile.Apply(ctx, cfg, o)
	if err != nil || o.DryRun || res == nil {
		return res, err
	}
	for _, name := range res.Pruned {
		dir := res.PrunedDir(name)
		if dir == "" {
			continue
		}
		if err := proxy.RemovePrunedRuntime(cfg.Home, name, dir); err != nil {
			return res, fmt.Errorf("pruned %s, but removing its runtime record failed: %w", name, err)
		}
	}
	return res, nil
}
