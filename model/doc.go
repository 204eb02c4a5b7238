// Package model holds the plain Go types and names shared by the config
// and the runtime: the decoded shapes of actant.cue's components
// (Backend, Template, Agent, Hook, Webhook, ...), an agent resolved
// (Resolved), and the names both sides spell (events, launch and
// interaction modes, archetypes, workspace policies, restart policies,
// signature schemes, formats and dialects), with the methods that need
// only them.
//
// It imports no CUE: package schema loads and validates actant.cue into
// these types (and names every one of them too), while the runtime
// (launch, supervise, tasklog, webhook, hooks, acpclient, runrecord,
// employee, up) imports model alone and links no CUE evaluator
// (docs/design.md, "One job per package").
package model
