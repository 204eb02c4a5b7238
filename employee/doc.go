// Package employee runs one employee task outside `actctl up`: `actctl
// task AGENT`, what an engine (a Kubernetes CronJob, a CI schedule, a
// systemd timer) calls (docs/runtime.md, "actctl task"). It picks the
// task the source names (the heartbeat, a cron entry, a prompt; or the
// entry a CI's schedule string names), takes the agent's lock so that two
// tasks of one agent never overlap and none runs while `up` runs the
// agent, runs one turn logged exactly as up logs its tasks (Turn, which
// up's tasks use too), fires the tick and task events, and renders the
// summary for a termination log and a CI step summary.
//
// It exists apart from package up because a task here is the whole life
// of a process (start the backend, one turn, stop), not a turn on a warm
// one; what both share (the task log, the event data) lives here once.
package employee
