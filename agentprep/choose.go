// Package agentprep prepares an agent for a client of it: `actctl proxy`,
// `run`, `chat`, `task` and the MCP tool run_agent, and gives every
// client, `up` included, the launch spec of its backend (Backend,
// Resident). It decides which copy of the
// agent the client gets (the declared agent, a per-project copy, an
// ephemeral copy of a busy or one-shot agent, an agent made from a
// template), refuses a mode the agent does not offer, materializes the
// agent under the workspace lock, records an ad-hoc agent once its files
// are written, and undoes what the client leaves behind (docs/run.md).
//
// It exists so that every client gets its agent the same way, from one
// place: the commands keep only flags, output and exit codes
// (docs/design.md).
package agentprep

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/actctl/actctl/proxy"
	"github.com/actctl/actctl/schema"
)

// Request says which agent a client asks for.
type Request struct {
	// Verb is the client's command (VerbProxy, VerbRun or VerbChat).
	Verb Verb
	// Name is the agent (with Template: the name of the agent to make,
	// "" for TEMPLATE-VERB-ID when Verb is not proxy).
	Name, Template string
	// ClientDir is the client's project directory (absolute).
	ClientDir string
	// Keep keeps an agent run or chat makes from Template.
	Keep bool
	// Live reports whether agent r is served by a live process; its
	// client then gets an ephemeral copy. Prepare reads the runtime
	// record when it is nil (RecordLive).
	Live func(r *schema.Resolved) (bool, error)
	// Holder, if set, names who holds a live agent r and what the client
	// could do instead (proxy: "actctl up", and its --lease), for the
	// note of r's ephemeral copy; "" when it does not know.
	Holder func(r *schema.Resolved) (who, instead string)
}

// Choice is which copy of an agent serves a client: the decision, before
// anything is written. Choose adds the agent it makes to the config, so
// that an apply of the config writes it.
type Choice struct {
	// Agent is the agent the client gets.
	Agent *schema.Resolved
	// Origin is the config path the agent comes from (its declaration,
	// the declared agent of a per-project copy, the template of a -t
	// agent), for the position of its warnings.
	Origin string
	// Ephemeral copies are removed when the client goes away.
	Ephemeral bool
	// Shared is an ephemeral copy of a live project agent: it shares the live
	// agent's files, so nothing is materialized.
	Shared bool
	// FromTemplate is an agent run or chat made with -t: it is recorded
	// as ad hoc and forgotten with its ephemeral copy.
	FromTemplate bool
	// Adhoc is the ad-hoc agent made for this client (a per-project
	// copy, a -t agent), to record once it is materialized; nil if none.
	Adhoc *Adhoc
	// Note is a line for the user (the switch to an ephemeral copy), ""
	// if none.
	Note string
}

// Adhoc is an ad-hoc agent to record once it is materialized, so that a
// copy that fails leaves no record behind to break later commands
// (docs/run.md).
type Adhoc struct {
	Name  string
	Agent schema.Agent
	// Fresh: the workspace has no record of it yet, so a failure
	// discards it; a recorded one that fails stays recorded (delete
	// removes it).
	Fresh bool
}

// UsageError is a request the command line got wrong (a command exits
// with its usage code).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Choose decides which copy of an agent serves the client of req (README,
// "Editors: ACP proxy and Zed"; docs/run.md). It writes nothing.
func Choose(cfg *schema.Config, req Request) (*Choice, error) {
	c := &choosing{cfg: cfg, req: req}
	var err error
	switch {
	case req.Verb == VerbProxy:
		err = c.proxied()
	case req.Template != "":
		err = c.fromTemplate()
	default:
		err = c.declared()
	}
	if err != nil {
		return nil, err
	}
	return &c.Choice, nil
}

// choosing is a Choice being made.
type choosing struct {
	Choice
	cfg *schema.Config
	req Request
}

// proxied picks the agent of a proxy; a live one is served by a copy.
func (c *choosing) proxied() error {
	r, err := c.pick(c.req.Name, c.req.Template)
	if err != nil {
		return err
	}
	c.Agent = r
	live, err := c.req.Live(r)
	if err != nil {
		return err
	}
	if live || perClient(r) {
		return c.ephemeralCopy(live)
	}
	return nil
}

// perClient reports whether every client of r gets a copy of its own,
// removed after: a template with workspacePolicy "ephemeral" or launch
// mode one-shot (docs/run.md).
func perClient(r *schema.Resolved) bool {
	return r.Template.WorkspacePolicy == "ephemeral" || r.LaunchMode == schema.LaunchOneShot
}

// perClientWhy is the setting that makes r a per-client agent.
func perClientWhy(r *schema.Resolved) string {
	if r.LaunchMode == schema.LaunchOneShot {
		return `launchMode "one-shot"`
	}
	return `workspacePolicy "ephemeral"`
}

// declared picks a declared agent for run or chat; a busy or one-shot one
// runs as a copy.
func (c *choosing) declared() error {
	if _, ok := c.cfg.Agents[c.req.Name]; ok {
		// Checked before pick, which makes a per-project copy.
		r, err := c.cfg.Resolve(c.req.Name)
		if err != nil {
			return err
		}
		if err := Offers(r, string(c.req.Verb)); err != nil {
			return err
		}
	}
	r, err := c.pick(c.req.Name, "")
	if err != nil {
		return err
	}
	c.Agent = r
	live, err := c.req.Live(r)
	if err != nil {
		return err
	}
	if live || perClient(r) {
		return c.ephemeralCopy(live)
	}
	return nil
}

// fromTemplate creates the agent NAME (default TEMPLATE-VERB-ID) from a
// template for run or chat; it is removed after the run unless Keep.
func (c *choosing) fromTemplate() error {
	verb, name, template := string(c.req.Verb), c.req.Name, c.req.Template
	if _, ok := c.cfg.Templates[template]; !ok {
		return UnknownTemplate(c.cfg, verb, template)
	}
	if r, err := c.cfg.ResolveAgent(template, schema.Agent{Template: template}); err != nil {
		return err
	} else if !r.Offer(verb) {
		return errors.New(r.TemplateNotOffered(verb))
	}
	if name == "" {
		var id [4]byte
		rand.Read(id[:])
		base := template
		if len(base) > 40 {
			base = base[:40]
		}
		name = base + "-" + verb + "-" + hex.EncodeToString(id[:])
	} else if _, ok := c.cfg.Agents[name]; ok {
		return &UsageError{fmt.Errorf("%s -t: agent %q is declared; drop -t to run it, or name another", verb, name)}
	}
	r, err := c.pick(name, template)
	if err != nil {
		return err
	}
	c.Agent, c.Ephemeral, c.FromTemplate = r, !c.req.Keep, true
	return nil
}

// Offers refuses, before anything is written, an agent that does not
// offer interaction mode m (run, chat, open), saying what it offers
// instead.
func Offers(r *schema.Resolved, m string) error {
	if r.Offer(m) {
		return nil
	}
	return errors.New(r.NotOffered(m))
}

// pick finds the agent that serves this client: a declared agent; for a
// tool agent whose workspace is not the client's project, a per-project
// copy materialized there with append; with a template an undeclared
// agent created from it, recorded in the workspace.
func (c *choosing) pick(name, template string) (*schema.Resolved, error) {
	if a, ok := c.cfg.Agents[name]; ok {
		c.Origin = schema.Path("agents", name)
		if a.Adhoc {
			c.Origin = schema.Path("templates", a.Template)
		}
		if o := c.declaredOrigin(name); o != "" {
			// A per-project copy asked for by name (an older Zed entry)
			// serves as its declared agent: another project gets a copy
			// of that, never a copy of the copy.
			name, a, c.Origin = o, c.cfg.Agents[o], schema.Path("agents", o)
		}
		r, err := c.cfg.Resolve(name)
		if err != nil {
			return nil, err
		}
		if err := proxy.CheckServe(r); err != nil {
			return nil, err
		}
		if r.Archetype.Workspace != schema.WorkspaceProject || schema.Within(r.Dir, c.req.ClientDir) {
			return r, nil
		}
		// A tool agent works in the client's project: give that project
		// its own copy of the agent, named after the directory.
		return c.adhoc(proxy.ProjectCopyName(name, c.req.ClientDir), a)
	}
	if template == "" {
		return nil, UnknownAgent(c.cfg, name)
	}
	if msg := schema.CheckName(name); msg != "" {
		return nil, fmt.Errorf("%s: %s", c.req.Verb, msg)
	}
	if _, ok := c.cfg.Templates[template]; !ok {
		return nil, UnknownTemplate(c.cfg, string(c.req.Verb), template)
	}
	c.Origin = schema.Path("templates", template)
	return c.adhoc(name, schema.Agent{Template: template})
}

// declaredOrigin is the declared agent the per-project copy name was made
// from ("goex" for "goex-p1a2b3c4d"), "" when name is no such copy.
func (c *choosing) declaredOrigin(name string) string {
	if a, ok := c.cfg.Agents[name]; !ok || !a.Adhoc {
		return ""
	}
	o := proxy.ProjectCopyOf(name)
	if a, ok := c.cfg.Agents[o]; ok && !a.Adhoc {
		return o
	}
	return ""
}

// adhoc adds an agent created for this client to the config and resolves
// it (Prepare records it in the workspace once its files are written); a
// project agent is placed in the client's project with the append policy,
// so the user's own files there are kept.
func (c *choosing) adhoc(name string, a schema.Agent) (*schema.Resolved, error) {
	t := c.cfg.Templates[a.Template]
	if arch, ok := c.cfg.Archetypes[t.Archetype]; ok && arch.Workspace == schema.WorkspaceProject {
		a.WorkDir = c.req.ClientDir
		a.WorkDirConflict = schema.ConflictAppend
	}
	r, err := c.cfg.ResolveAgent(name, a)
	if err != nil {
		return nil, err
	}
	if err := proxy.CheckServe(r); err != nil {
		return nil, err
	}
	if msg := schema.CheckWorkDir(r.Dir, c.cfg.Home); a.WorkDir != "" && msg != "" {
		return nil, fmt.Errorf("%s %s: the client's project: %s", c.req.Verb, name, msg)
	}
	old, recorded := c.cfg.Agents[name]
	c.Adhoc = &Adhoc{Name: name, Agent: a, Fresh: !recorded || !old.Adhoc}
	c.cfg.Agents[name] = a
	return r, nil
}

// ephemeralCopy switches the choice to a fresh copy of a busy (live) or
// per-client agent, "<agent>-eph-<id>", removed when the client goes
// away. An instance agent's copy gets its own instance directory; a copy
// of a live project agent shares the project's files and only has its
// own process record.
func (c *choosing) ephemeralCopy(live bool) error {
	name := proxy.EphemeralName(c.Agent.Name)
	a := c.Agent.Agent
	r, err := c.cfg.ResolveAgent(name, a)
	if err != nil {
		return err
	}
	c.Note = c.copyNote(name, live)
	// A busy per-project copy is its own session's to record.
	c.Adhoc = nil
	c.Ephemeral = true
	// A per-client copy of a project agent is its own: its files are
	// written for the client and pruned after it.
	c.Shared = live && r.Archetype.Workspace != schema.WorkspaceInstance
	if !c.Shared {
		c.cfg.Agents[name] = a
	}
	c.Agent = r
	return nil
}

// copyNote is the line saying the client gets the ephemeral copy name of
// the agent: why (its policy, or who holds the live agent and what the
// client could do instead, when Request.Holder knows).
func (c *choosing) copyNote(name string, live bool) string {
	if !live {
		return fmt.Sprintf("%s: %s has %s; using the ephemeral copy %s (removed when the client goes away)", c.req.Verb, c.Agent.Name, perClientWhy(c.Agent), name)
	}
	var who, instead string
	if c.req.Holder != nil {
		who, instead = c.req.Holder(c.Agent)
	}
	if who == "" {
		return fmt.Sprintf("%s: %s is served by a live process; using the ephemeral copy %s", c.req.Verb, c.Agent.Name, name)
	}
	note := fmt.Sprintf("%s: %s is held by %s; using the ephemeral copy %s", c.req.Verb, c.Agent.Name, who, name)
	if instead != "" {
		note += " (a process of its own); " + instead
	}
	return note
}

// UnknownAgent is the error for a name that is no agent of cfg.
func UnknownAgent(cfg *schema.Config, name string) error {
	return schema.UnknownAgent(name, slices.Sorted(maps.Keys(cfg.Agents)))
}

// UnknownTemplate is the error for `VERB -t TEMPLATE` naming no template.
func UnknownTemplate(cfg *schema.Config, verb, template string) error {
	msg := fmt.Sprintf("%s -t: unknown template %q", verb, template)
	if sug := schema.Suggest(template, slices.Sorted(maps.Keys(cfg.Templates))); sug != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", sug)
	}
	return fmt.Errorf("%s", msg)
}
