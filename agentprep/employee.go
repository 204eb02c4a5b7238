package agentprep

import (
	"context"
	"fmt"

	"github.com/actctl/actctl/schema"
)

// EmployeeAgent resolves the declared agent name for `actctl task`
// (docs/runtime.md), writing nothing: an unknown agent is an error,
// another archetype than employee a *UsageError naming it and `actctl
// run`.
func EmployeeAgent(cfg *schema.Config, name string) (*schema.Resolved, error) {
	if _, ok := cfg.Agents[name]; !ok {
		return nil, UnknownAgent(cfg, name)
	}
	r, err := cfg.Resolve(name)
	if err != nil {
		return nil, err
	}
	if r.ArchetypeName != "employee" {
		return nil, &UsageError{fmt.Errorf("task: agent %s has archetype %q: task runs an employee's tasks; for one turn with it use `actctl run %s -p TEXT`",
			name, r.ArchetypeName, name)}
	}
	return r, nil
}

// Employee materializes the employee r (from EmployeeAgent) for `actctl
// task`: the declared agent, never a copy (the task's lock keeps its
// tasks apart), under the workspace lock. Cleanup marks it stopped.
func Employee(ctx context.Context, cfg *schema.Config, r *schema.Resolved, o Options) (*Prepared, error) {
	p := &Prepared{Choice: &Choice{Agent: r, Origin: "agents." + r.Name}, Config: cfg, ClientDir: r.Dir, verb: VerbTask, stderr: o.Stderr}
	if err := p.materialize(ctx, o.Materialized); err != nil {
		p.release()
		return nil, err
	}
	return p, nil
}
