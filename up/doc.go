// Package up is the runtime of `actctl up` (docs/runtime.md): it holds a
// workspace's long-running agents — services and employees — each behind a
// supervisor (package supervise) that restarts it by its launch mode, and
// for employees a serial task queue fed by their heartbeat and cron
// schedule (package schedule). Every turn an agent runs is logged (package
// tasklog), every lifecycle and task event is published to the hooks bus,
// and the Manager answers the control requests (start, stop, restart,
// prompt, status) that arrive on the workspace's socket (package control).
//
// It knows nothing of the command line or of how an agent is materialized:
// the caller gives it one Spec per agent and a Launch function that starts
// the agent's backend as an ACP client (package acpclient), and calls Sync
// again whenever the config changed.
package up
