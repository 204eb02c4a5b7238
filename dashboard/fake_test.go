package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

// fake is a Source in memory.
type fake struct {
	mu       sync.Mutex
	agents   map[string]Agent
	logs     map[string][]byte // "agent/task" -> JSON lines
	paths    map[string]string // "agent/task" -> the log's file
	canvas   map[string]string
	queue    map[string][]Queued
	queueN   int // calls of Queue
	hooks    []Hook
	ticks    map[string][]time.Time
	stderr   map[string]string // agent -> its stderr log
	prompts  []string
	controls []string
	// reply is what a prompt streams (ACP message lines).
	reply []string
}

func newFake(agents ...Agent) *fake {
	f := &fake{agents: map[string]Agent{}, logs: map[string][]byte{}, paths: map[string]string{}, canvas: map[string]string{}}
	for _, a := range agents {
		f.agents[a.Name] = a
	}
	return f
}

func (f *fake) Agents() []Agent {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Agent
	for _, a := range f.agents {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b Agent) int { return cmpString(a.Name, b.Name) })
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (f *fake) Agent(name string) (Agent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a, ok := f.agents[name]
	if !ok {
		return Agent{}, fmt.Errorf("agent %s is not run by this actctl up", name)
	}
	return a, nil
}

func (f *fake) set(a Agent) {
	f.mu.Lock()
	f.agents[a.Name] = a
	f.mu.Unlock()
}

func (f *fake) Detail(name string) (Detail, error) {
	a, err := f.Agent(name)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Agent: a, Describe: "Name: " + name}
	d.Queue, _ = f.Queue(name)
	d.Ticks, _ = f.Ticks(name)
	if a.LastTask != nil {
		d.Tasks = []tasklog.Summary{*a.LastTask}
	}
	return d, nil
}

func (f *fake) TaskLog(name string, task uint64) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, ok := f.logs[fmt.Sprintf("%s/%d", name, task)]
	if !ok {
		return nil, fmt.Errorf("agent %s has no task %d", name, task)
	}
	return b, nil
}

func (f *fake) Task(name string, task uint64) (tasklog.Summary, error) {
	a, err := f.Agent(name)
	if err != nil || a.LastTask == nil || a.LastTask.Task != task {
		return tasklog.Summary{}, fmt.Errorf("agent %s: no ended task %d", name, task)
	}
	return *a.LastTask, nil
}

func (f *fake) TaskLogPath(name string, task uint64) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.paths[fmt.Sprintf("%s/%d", name, task)]
	if !ok {
		return "", fmt.Errorf("agent %s has no task %d", name, task)
	}
	return p, nil
}

func (f *fake) StderrPath(name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	p, ok := f.stderr[name]
	if !ok {
		return "", fmt.Errorf("agent %s has no log", name)
	}
	return p, nil
}

func (f *fake) Prompt(ctx context.Context, agent, text string, sink up.Sink) (up.Outcome, error) {
	f.mu.Lock()
	f.prompts = append(f.prompts, agent+": "+text)
	reply := f.reply
	f.mu.Unlock()
	for _, l := range reply {
		sink("message", json.RawMessage(l))
	}
	return up.Outcome{Agent: agent, Task: 1, StopReason: "end_turn"}, nil
}

func (f *fake) Enqueue(ctx context.Context, agent, text string) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.prompts = append(f.prompts, agent+": "+text)
	return 7, nil
}

func (f *fake) Control(ctx context.Context, op, agent string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.controls = append(f.controls, op+" "+agent)
	return nil
}

func (f *fake) Queue(name string) ([]Queued, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queueN++
	return slices.Clone(f.queue[name]), nil
}

func (f *fake) setQueue(name string, q ...Queued) {
	f.mu.Lock()
	if f.queue == nil {
		f.queue = map[string][]Queued{}
	}
	f.queue[name] = q
	f.mu.Unlock()
}

func (f *fake) Ticks(name string) ([]time.Time, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.ticks[name]), nil
}

func (f *fake) Hooks() []Hook {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.hooks)
}

func (f *fake) Canvas(agent string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.canvas[agent], nil
}

func (f *fake) calls() (prompts, controls []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.prompts), slices.Clone(f.controls)
}
