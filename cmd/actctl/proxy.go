package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

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

// proxySession is one `actctl proxy` run: which agent serves the client,
// and what to undo when the client goes away.
type proxySession struct {
	g         *globals
	cfg       *schema.Config
	r         *schema.Resolved
	clientDir string
	// ephemeral copies are removed (pruned) when the client disconnects.
	ephemeral bool
	// materialize is false for an ephemeral copy of a project agent, which
	// shares the live agent's files.
	materialize bool
	log         io.Writer
	// origin is the config path the served agent comes from, for the
	// position of its warnings.
	origin string
	// unrecorded is the ad-hoc agent made for this client (a per-project
	// copy, a -t agent) until it is materialized: only then is it recorded
	// in .actant/adhoc.json, so that a copy that fails leaves no record
	// behind to break later commands (docs/run.md).
	unrecorded *unrecorded
}

// unrecorded is an ad-hoc agent to record once it is materialized.
type unrecorded struct {
	name  string
	agent schema.Agent
	// fresh: the workspace has no record of it yet, so a failure
	// discards it; a recorded one that fails stays recorded (delete
	// removes it).
	fresh bool
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
	s := &proxySession{g: g, cfg: cfg, clientDir: clientDir, materialize: true, log: g.Stderr}
	if s.r, err = s.pickAgent(name, template); err != nil {
		return nil, err
	}
	rec, err := proxy.ReadRecord(proxy.RecordPath(s.r))
	if err != nil {
		return nil, err
	}
	if rec.Live() {
		if err := s.ephemeralCopy(); err != nil {
			return nil, err
		}
	}
	if err := s.materializeAgent(ctx, "proxy"); err != nil {
		s.cleanup()
		return nil, err
	}
	return s, nil
}

// warn prints the apply warnings about the served agent (apply renders,
// and warns about, every agent), at the position of what it comes from:
// its declaration, the declared agent of a per-project copy, the template
// of a -t agent.
func (s *proxySession) warn(warnings []string) {
	marker := "warning: agents." + s.r.Name + ": "
	for _, w := range warnings {
		if i := strings.Index(w, marker); i >= 0 {
			d := schema.Diagnostic{Pos: s.cfg.Pos(s.origin), Path: "agents." + s.r.Name, Message: w[i+len(marker):], Warning: true}
			fmt.Fprintf(s.g.Stderr, "actctl: %s\n", d)
		}
	}
}

// materializeAgent applies the session's agent (unless it shares a live
// agent's files); verb names the command in the summary line.
func (s *proxySession) materializeAgent(ctx context.Context, verb string) error {
	if !s.materialize {
		return nil
	}
	g := s.g
	res, err := reconcile.Apply(ctx, s.cfg, reconcile.Options{Only: []string{s.r.Name}, NoPrune: true, LockWait: 10 * time.Second})
	if res != nil {
		s.warn(res.Warnings)
	}
	if err != nil {
		return fmt.Errorf("materialize %s: %w", s.r.Name, err)
	}
	if u := s.unrecorded; u != nil {
		if err := recordAdhoc(ctx, s.cfg.Root, u.name, &u.agent); err != nil {
			return fmt.Errorf("materialize %s: record the agent: %w", u.name, err)
		}
		s.unrecorded = nil
	}
	if res.Counts.Changed > 0 { // an agent already applied starts in silence
		fmt.Fprintf(g.Stderr, "actctl: %s %s: %s (%s)\n", verb, s.r.Name, res.Summary(), s.r.Dir)
	}
	if !s.ephemeral {
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

// pickAgent finds the agent that serves this client (README, "Editors: ACP
// proxy and Zed"):
// a declared agent; for a tool agent whose workspace is not the client's
// project, a per-project copy materialized there with append; with -t an
// undeclared agent created from the template, recorded in the workspace.
func (s *proxySession) pickAgent(name, template string) (*schema.Resolved, error) {
	if a, ok := s.cfg.Agents[name]; ok {
		s.origin = schema.Path("agents", name)
		if a.Adhoc {
			s.origin = schema.Path("templates", a.Template)
		}
		if o := s.declaredOrigin(name); o != "" {
			// A per-project copy asked for by name (an older Zed entry)
			// serves as its declared agent: another project gets a copy
			// of that, never a copy of the copy.
			name, a, s.origin = o, s.cfg.Agents[o], schema.Path("agents", o)
		}
		r, err := s.cfg.Resolve(name)
		if err != nil {
			return nil, err
		}
		if err := proxy.CheckServe(r); err != nil {
			return nil, err
		}
		if r.Archetype.Workspace != schema.WorkspaceProject || schema.Within(r.Dir, s.clientDir) {
			return r, nil
		}
		// A tool agent works in the editor's project: give that project
		// its own copy of the agent, named after the directory.
		return s.adhoc(proxy.ProjectCopyName(name, s.clientDir), a)
	}
	if template == "" {
		return nil, unknownAgent(s.cfg, name)
	}
	if msg := schema.CheckName(name); msg != "" {
		return nil, fmt.Errorf("proxy: %s", msg)
	}
	if _, ok := s.cfg.Templates[template]; !ok {
		return nil, unknownTemplate(s.cfg, "proxy", template)
	}
	s.origin = schema.Path("templates", template)
	return s.adhoc(name, schema.Agent{Template: template})
}

// declaredOrigin is the declared agent the per-project copy name was made
// from ("goex" for "goex-p1a2b3c4d"), "" when name is no such copy.
func (s *proxySession) declaredOrigin(name string) string {
	if a, ok := s.cfg.Agents[name]; !ok || !a.Adhoc {
		return ""
	}
	o := proxy.ProjectCopyOf(name)
	if a, ok := s.cfg.Agents[o]; ok && !a.Adhoc {
		return o
	}
	return ""
}

// unknownTemplate is the error for `VERB -t TEMPLATE` naming no template.
func unknownTemplate(cfg *schema.Config, verb, template string) error {
	msg := fmt.Sprintf("%s -t: unknown template %q", verb, template)
	if sug := schema.Suggest(template, slices.Sorted(maps.Keys(cfg.Templates))); sug != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", sug)
	}
	return fmt.Errorf("%s", msg)
}

// adhoc adds an agent created for this client to the session's config
// and resolves it (materializeAgent records it in the workspace once its
// files are written); a project agent is placed in the client's project with the
// append policy, so the user's own files there are kept.
func (s *proxySession) adhoc(name string, a schema.Agent) (*schema.Resolved, error) {
	t := s.cfg.Templates[a.Template]
	if arch, ok := s.cfg.Archetypes[t.Archetype]; ok && arch.Workspace == schema.WorkspaceProject {
		a.WorkDir = s.clientDir
		a.WorkDirConflict = schema.ConflictAppend
	}
	r, err := s.cfg.ResolveAgent(name, a)
	if err != nil {
		return nil, err
	}
	if err := proxy.CheckServe(r); err != nil {
		return nil, err
	}
	if msg := schema.CheckWorkDir(r.Dir, s.cfg.Home); a.WorkDir != "" && msg != "" {
		return nil, fmt.Errorf("proxy %s: the client's project: %s", name, msg)
	}
	old, recorded := s.cfg.Agents[name]
	s.unrecorded = &unrecorded{name: name, agent: a, fresh: !recorded || !old.Adhoc}
	s.cfg.Agents[name] = a
	return r, nil
}

// ephemeralCopy switches the session to a fresh copy of a busy agent,
// "<agent>-eph-<id>", removed when the client disconnects. An instance
// agent's copy gets its own instance directory; a project agent's copy
// shares the project's files and only has its own process record.
func (s *proxySession) ephemeralCopy() error {
	name := proxy.EphemeralName(s.r.Name)
	a := s.r.Agent
	r, err := s.cfg.ResolveAgent(name, a)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.g.Stderr, "actctl: proxy: %s is served by a live process; using the ephemeral copy %s\n", s.r.Name, name)
	// A busy per-project copy is its own session's to record.
	s.unrecorded = nil
	s.ephemeral = true
	s.materialize = r.Archetype.Workspace == schema.WorkspaceInstance
	if s.materialize {
		s.cfg.Agents[name] = a
	}
	s.r = r
	return nil
}

func (s *proxySession) serve(ctx context.Context) error {
	l, err := proxy.Resolve(s.r, schema.ModeACP)
	if err != nil {
		s.cleanup()
		return refuse(ctx, s.g, err)
	}
	record := proxy.RecordPath(s.r)
	err = proxy.Run(ctx, proxy.Options{
		Command: l.Command, Args: l.Args, Env: append(os.Environ(), l.EnvList()...),
		ProcessCwd: l.Cwd, SessionCwd: l.SessionCwd, Workspace: l.Workspace, InstallHint: l.Install,
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: s.g.Stderr,
		LogFile: proxy.LogPath(s.r),
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
	if u := s.unrecorded; u != nil {
		s.unrecorded = nil
		if u.fresh {
			s.discard()
			return
		}
	}
	record := proxy.RecordPath(s.r)
	if !s.ephemeral {
		if _, err := os.Stat(record); err == nil {
			if err := proxy.UpdateRecord(record, map[string]any{"status": "stopped", "pid": nil}); err != nil {
				fmt.Fprintf(s.g.Stderr, "actctl: proxy: %v\n", err)
			}
		}
		return
	}
	if !s.materialize {
		os.Remove(record)
		return
	}
	delete(s.cfg.Agents, s.r.Name)
	// Pruning the copy needs a fresh context: the session's may be
	// cancelled by the signal that ended it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := reconcile.Apply(ctx, s.cfg, reconcile.Options{Only: []string{s.r.Name}, LockWait: 5 * time.Second}); err != nil {
		fmt.Fprintf(s.g.Stderr, "actctl: proxy: remove ephemeral %s: %v\n", s.r.Name, err)
	}
	if err := proxy.RemoveRuntime(s.r); err != nil {
		fmt.Fprintf(s.g.Stderr, "actctl: proxy: remove ephemeral %s: %v\n", s.r.Name, err)
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
