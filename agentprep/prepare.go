package agentprep

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/actctl/actctl/launch"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/runrecord"
	"github.com/actctl/actctl/schema"
)

// Options says where Prepare reports and what it tells its caller.
type Options struct {
	// Stderr receives the line that an ephemeral copy serves, the apply
	// summary and warnings of the agent, and what cleaning up failed at.
	Stderr io.Writer
	// Materialized, if set, is called once an agent that outlives its
	// client is materialized (the command saves its config cache then;
	// an ephemeral agent leaves nothing behind, the cache included).
	Materialized func()
}

// Prepared is an agent ready for its client: chosen, materialized under
// the workspace lock and, if made for this client, recorded. Its
// Cleanup undoes what the client leaves behind.
type Prepared struct {
	*Choice
	// Config is the workspace's config, the agent made for this client
	// included.
	Config *schema.Config
	// ClientDir is the client's project directory.
	ClientDir string
	verb      Verb
	stderr    io.Writer
	pid       atomic.Int64 // the client's backend, once Running recorded it
}

// Running records in the agent's runtime record that the client's backend,
// process pid, serves it (the call of a launch's OnStart); Cleanup marks
// it stopped only while the record still names that process.
func (p *Prepared) Running(pid int) error {
	p.pid.Store(int64(pid))
	return runrecord.MarkRunning(runrecord.Path(p.Agent), pid)
}

// Prepare chooses the agent for the client of req (Choose) and
// materializes it (docs/run.md); a client project inside a directory no
// agent may write is refused first (schema.SessionCwd). On an error nothing of an agent made for
// this client is left behind.
func Prepare(ctx context.Context, cfg *schema.Config, req Request, o Options) (*Prepared, error) {
	if req.Live == nil {
		req.Live = RecordLive
	}
	if err := schema.SessionCwd(cfg.Root, req.ClientDir); err != nil {
		return nil, err
	}
	c, err := Choose(cfg, req)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Choice: c, Config: cfg, ClientDir: req.ClientDir, verb: req.Verb, stderr: o.Stderr}
	if c.Note != "" {
		fmt.Fprintf(p.stderr, "actctl: %s\n", c.Note)
	}
	if err := p.materialize(ctx, o.Materialized); err != nil {
		p.release()
		return nil, err
	}
	return p, nil
}

// Materialize prepares the declared agent r for a client that starts its
// backend itself (`actctl resolve`): its files are applied under the
// workspace lock, as a proxy's agent is, so that the directory printed
// for it exists and holds them. An agent whose every client gets a copy
// of its own is refused with the reason: only a proxy makes and removes
// that copy (docs/run.md).
func Materialize(ctx context.Context, cfg *schema.Config, r *schema.Resolved, verb Verb, stderr io.Writer) error {
	if perClient(r) {
		return fmt.Errorf("%s: %s has %s: each client gets a copy of its own, which only `actctl proxy %s` makes and removes; start it through proxy", verb, r.Name, perClientWhy(r), r.Name)
	}
	p := &Prepared{Choice: &Choice{Agent: r, Origin: schema.Path("agents", r.Name)}, Config: cfg, verb: verb, stderr: stderr}
	return p.materialize(ctx, nil)
}

// RecordLive is the Request.Live of Prepare by default: whether agent r's
// runtime record names a live process (docs/design.md, "The records").
func RecordLive(r *schema.Resolved) (bool, error) {
	rec, err := runrecord.Read(runrecord.Path(r))
	return rec.Live(), err
}

// ClientProject is the client's project directory: cwd made absolute,
// else the current directory; it must be a directory.
func ClientProject(cwd string) (string, error) {
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

// Launch is how the agent's backend is started in interaction mode
// (schema.ModeACP for a client speaking ACP).
func (p *Prepared) Launch(mode string) (launch.Launch, error) { return launch.Resolve(p.Agent, mode) }

// materialize applies the agent (unless it shares a live agent's files)
// and records an agent made for this client once its files are written.
func (p *Prepared) materialize(ctx context.Context, materialized func()) error {
	if p.Shared {
		return nil
	}
	res, err := reconcile.Apply(ctx, p.Config, reconcile.Options{Only: []string{p.Agent.Name}, NoPrune: true, LockWait: 10 * time.Second})
	if res != nil {
		p.warn(res.Warnings)
	}
	if err != nil {
		return fmt.Errorf("materialize %s: %w", p.Agent.Name, err)
	}
	if u := p.Adhoc; u != nil {
		if err := RecordAdhoc(ctx, p.Config.Root, p.Config.Home, u.Name, &u.Agent); err != nil {
			return fmt.Errorf("materialize %s: record the agent: %w", u.Name, err)
		}
		p.Adhoc = nil
	}
	if res.Counts.Changed > 0 { // an agent already applied starts in silence
		fmt.Fprintf(p.stderr, "actctl: %s %s: %s (%s)\n", p.verb, p.Agent.Name, res.Summary(), p.Agent.Dir)
	}
	if !p.Ephemeral && materialized != nil {
		materialized()
	}
	return nil
}

// warn prints the apply warnings about the agent (apply renders, and
// warns about, every agent), at the position of what it comes from: its
// declaration, the declared agent of a per-project copy, the template of
// a -t agent.
func (p *Prepared) warn(warnings []string) {
	marker := "warning: " + schema.Path("agents", p.Agent.Name) + ": "
	for _, w := range warnings {
		if i := strings.Index(w, marker); i >= 0 {
			d := schema.Diagnostic{Pos: p.Config.Pos(p.Origin), Path: schema.Path("agents", p.Agent.Name), Message: w[i+len(marker):], Warning: true}
			fmt.Fprintf(p.stderr, "actctl: %s\n", d)
		}
	}
}

// Cleanup marks the agent stopped, or removes an ephemeral copy entirely
// (its files, its runtime record, a -t agent's record), or an ad-hoc
// agent that never materialized. It reports failures on Options.Stderr.
func (p *Prepared) Cleanup() {
	p.release()
	if p.verb.keepsAgent() {
		return
	}
	if p.Ephemeral && p.Agent.Archetype.Workspace == schema.WorkspaceInstance {
		// $ACTANT_HOME/instances, if the copy was its only entry.
		_ = os.Remove(filepath.Dir(p.Agent.Dir))
	}
	if p.Ephemeral && p.FromTemplate {
		if err := RecordAdhoc(context.Background(), p.Config.Root, p.Config.Home, p.Agent.Name, nil); err != nil {
			fmt.Fprintf(p.stderr, "actctl: %s: remove ephemeral %s: %v\n", p.verb, p.Agent.Name, err)
		}
	}
}

// release marks the agent stopped, or removes an ephemeral copy, or an
// ad-hoc agent that never materialized.
func (p *Prepared) release() {
	if u := p.Adhoc; u != nil {
		p.Adhoc = nil
		if u.Fresh {
			p.discard()
			return
		}
	}
	record := runrecord.Path(p.Agent)
	if !p.Ephemeral {
		if _, err := os.Stat(record); err == nil {
			if _, err := runrecord.MarkStopped(record, int(p.pid.Load()), runrecord.StatusStopped); err != nil {
				fmt.Fprintf(p.stderr, "actctl: %s: %v\n", p.verb, err)
			}
		}
		return
	}
	if p.Shared {
		os.Remove(record)
		os.Remove(runrecord.LockPath(record))
		return
	}
	delete(p.Config.Agents, p.Agent.Name)
	// Pruning the copy needs a fresh context: the client's may be
	// cancelled by the signal that ended it.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := reconcile.Apply(ctx, p.Config, reconcile.Options{Only: []string{p.Agent.Name}, LockWait: 5 * time.Second}); err != nil {
		fmt.Fprintf(p.stderr, "actctl: %s: remove ephemeral %s: %v\n", p.verb, p.Agent.Name, err)
	}
	if err := runrecord.RemoveRuntime(p.Agent); err != nil {
		fmt.Fprintf(p.stderr, "actctl: %s: remove ephemeral %s: %v\n", p.verb, p.Agent.Name, err)
	}
}

// discard undoes an ad-hoc agent whose materialization failed, before it
// was ever recorded (docs/run.md): what the failed apply wrote, and the
// journal it left, are pruned, and its runtime record is removed, so that
// nothing of it is left to break later commands.
func (p *Prepared) discard() {
	name := p.Agent.Name
	delete(p.Config.Agents, name)
	if Applied(p.Config.Root, p.Config.Home, name) {
		// A fresh context: the client's may be cancelled already.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := reconcile.Apply(ctx, p.Config, reconcile.Options{Only: []string{name}, LockWait: 5 * time.Second}); err != nil {
			fmt.Fprintf(p.stderr, "actctl: remove the failed copy %s: %v\n", name, err)
		}
	}
	if err := runrecord.RemoveRuntime(p.Agent); err != nil {
		fmt.Fprintf(p.stderr, "actctl: remove the failed copy %s: %v\n", name, err)
	}
}
