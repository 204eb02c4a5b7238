package dashboard

import (
	"context"
	"time"

	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

// Source is what the dashboard knows of the running agents: `up`
// provides it (cmd/actctl), tests a fake.
type Source interface {
	// Agents returns every agent `up` runs, by name.
	Agents() []Agent
	// Agent returns one agent's card; an error names an unknown one.
	Agent(name string) (Agent, error)
	// Detail returns what the agent's page shows beyond its card.
	Detail(name string) (Detail, error)
	// TaskLog returns the ACP messages (JSON lines) of one task's log.
	TaskLog(name string, task uint64) ([]byte, error)
	// Task returns the summary of an ended task; an error when it has
	// none (unknown, or still running).
	Task(name string, task uint64) (tasklog.Summary, error)
	// TaskLogPath returns the file of one task's log, which grows while
	// the task runs (the live log).
	TaskLogPath(name string, task uint64) (string, error)
	// StderrPath returns the file the agent's process writes its stderr
	// to (its log, which grows while it runs).
	StderrPath(name string) (string, error)
	// Prompt gives agent a person's prompt (an employee: a queued task; a
	// service: a new session) and streams its output to sink as up.Sink.
	Prompt(ctx context.Context, agent, text string, sink up.Sink) (up.Outcome, error)
	// Enqueue queues an employee's task of a person's prompt without
	// waiting for it (the task's id).
	Enqueue(ctx context.Context, agent, text string) (uint64, error)
	// Control starts, stops or restarts agent (op: OpStart, ...).
	Control(ctx context.Context, op, agent string) error
	// Queue returns an employee's tasks waiting and running, in order
	// (none for other archetypes).
	Queue(name string) ([]Queued, error)
	// Ticks returns an employee's next ticks (at most five), in the
	// schedule's zone (none for other archetypes).
	Ticks(name string) ([]time.Time, error)
	// Hooks returns the hooks up runs, as `actctl get hooks` lists them:
	// the config's, then the employees' runtime subscriptions.
	Hooks() []Hook
	// Canvas returns an employee's canvas HTML ("" when it has none).
	Canvas(agent string) (string, error)
	// Sessions is up's conversations and task controls (*up.Manager).
	Sessions() Sessions
}

// Sessions is what the dashboard's conversations and task controls ask of
// up (docs/dashboard.md, "Conversations"); *up.Manager provides it.
type Sessions interface {
	// CancelTask cancels a task waiting in an employee's queue, or the
	// turn of a running task.
	CancelTask(agent string, id uint64) error
	// NewConversation opens a conversation (a session on the agent's
	// running process) and returns its id.
	NewConversation(ctx context.Context, agent string) (string, error)
	// Conversations lists the agent's open conversations, newest first.
	Conversations(agent string) ([]up.Conversation, error)
	// Conversation returns one.
	Conversation(agent, id string) (up.Conversation, error)
	// Say starts a turn of a conversation and returns its task id.
	Say(ctx context.Context, agent, id, text string) (uint64, error)
	// CancelTurn cancels a conversation's running turn.
	CancelTurn(agent, id string) error
	// Answer answers a permission request put to the person in a
	// conversation: the agent's option chosen for the tool call.
	Answer(agent, id, call, option string) error
	// CloseConversation closes a conversation (its session; an
	// on-demand agent's process stops once none holds it).
	CloseConversation(agent, id string) error
}

// The agent operations of Source.Control.
const (
	OpStart   = "start"
	OpStop    = "stop"
	OpRestart = "restart"
)

// Agent is one agent's card.
type Agent struct {
	up.AgentStatus
	Backend  string `json:"backend,omitempty"`
	Template string `json:"template,omitempty"`
	// OnDemand marks a repo or tool agent, which up never starts by
	// itself: a conversation starts its process (docs/dashboard.md,
	// "Repo and tool agents").
	OnDemand bool `json:"onDemand,omitempty"`
	// LastTask is the last task that ended, nil when none did.
	LastTask *tasklog.Summary `json:"lastTask,omitempty"`
}

// Detail is what an agent's page shows beyond its card.
type Detail struct {
	Agent
	// Describe is the agent as `actctl describe` shows it (text).
	Describe string
	// Files are the files it owns, each with its sync state.
	Files []File
	// Zone is the schedule's time zone (its entries'); Ticks its next
	// ticks (at most five), Schedule one line per entry.
	Zone     string
	Ticks    []time.Time
	Schedule []string
	// Tasks are the ended tasks, oldest first.
	Tasks []tasklog.Summary
	// Queue are the tasks waiting (employees).
	Queue []Queued
}

// File is one owned file and its state ("synced", "update", ...).
type File struct {
	Path  string `json:"path"`
	Mode  string `json:"mode,omitempty"`
	State string `json:"state"`
}

// Queued is a task waiting in an employee's queue, or running.
type Queued struct {
	ID      uint64 `json:"id"`
	Kind    string `json:"kind"`
	Prompt  string `json:"prompt"`
	Running bool   `json:"running,omitempty"`
}

// Hook is one hook as `actctl get hooks` lists it (docs/runtime.md,
// "Runtime subscriptions"): Agents "*" for every agent, Action what it
// runs or prompts, Origin "actant.cue" or "agent NAME (runtime)".
type Hook struct {
	Name   string `json:"name"`
	On     string `json:"on"`
	Agents string `json:"agents"`
	Action string `json:"action"`
	Origin string `json:"origin"`
}
