package agentprep

import (
	"context"
	"fmt"
	"strings"

	"github.com/actctl/actctl/schema"
)

// EmployeeAgent resolves the declared agent name for `actctl task`
// (docs/runtime.md), writing nothing: an unknown agent is an error,
// another archetype than employee a *UsageError naming it and `actctl
// run`, an employee that does not offer start an error saying what it
// offers.
func EmployeeAgent(cfg *schema.Config, name string) (*schema.Resolved, error) {
	if _, ok := cfg.Agents[name]; !ok {
		return nil, UnknownAgent(cfg, name)
	}
	r, err := cfg.Resolve(name)
	if err != nil {
		return nil, err
	}
	if r.ArchetypeName != schema.ArchEmployee {
		return nil, &UsageError{fmt.Errorf("task: agent %s has archetype %q: task runs an employee's tasks; %s",
			name, r.ArchetypeName, oneTurn(r))}
	}
	// A task is one of up's scheduled tasks, run without up: it serves
	// the start mode, as up does (docs/runtime.md, "actctl task").
	if err := Offers(r, schema.InteractStart); err != nil {
		return nil, fmt.Errorf("task: %w", err)
	}
	return r, nil
}

// oneTurn says how to have one turn with r, by what it offers: `run`,
// else a prompt to the `up` that holds it (a service), else its modes.
func oneTurn(r *schema.Resolved) string {
	switch {
	case r.Offer(schema.InteractRun):
		return fmt.Sprintf("for one turn with it use `actctl run %s -p TEXT`", r.Name)
	case r.LaunchMode == schema.LaunchACPService || r.LaunchMode == schema.LaunchACPBackground:
		return fmt.Sprintf("it offers %s: for one turn with it use `actctl prompt %s -p TEXT` while `actctl up` runs it",
			strings.Join(r.Offers(), ", "), r.Name)
	case len(r.Offers()) > 0:
		return fmt.Sprintf("it offers %s", strings.Join(r.Offers(), ", "))
	}
	return "it offers no interaction mode"
}

// Employee materializes the employee r (from EmployeeAgent) for `actctl
// task`: the declared agent, never a copy (the task's lock keeps its
// tasks apart), under the workspace lock. Cleanup marks it stopped.
func Employee(ctx context.Context, cfg *schema.Config, r *schema.Resolved, o Options) (*Prepared, error) {
	p := &Prepared{Choice: &Choice{Agent: r, Origin: schema.Path("agents", r.Name)}, Config: cfg, ClientDir: r.Dir, verb: VerbTask, stderr: o.Stderr}
	if err := p.materialize(ctx, o.Materialized); err != nil {
		p.release()
		return nil, err
	}
	return p, nil
}
