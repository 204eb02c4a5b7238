package schema

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// taskEvents are the events that a prompt's task causes about the agent
// it prompts: a prompt hook on one of them for agent A, prompting B, makes
// every task of A end in a task for B.
var taskEvents = []string{EventTaskDone, EventTaskFailed, EventIdle, EventSessionStart, EventSessionEnd, EventPromptBefore, EventPromptAfter, EventError}

// hookEdge is one way a task of one agent queues a task for another: the
// hook, the path of the field that names the prompted agent, and the agent.
type hookEdge struct {
	hook, path, to string
}

// hookLoops warns of every loop of hooks it can see: agents whose task
// events prompt each other (A's task:done prompts B, B's prompts A; longer
// rings too). A hook that prompts the agent its own event is about is an
// error of validateHooks, not repeated here. One warning per group of
// agents that feed each other, at the first hook of a shortest loop
// through its first agent, naming each hook of the loop with its position.
func (c *Config) hookLoops() Diagnostics {
	edges := c.hookEdges()
	var ds Diagnostics
	for _, group := range stronglyConnected(slices.Sorted(maps.Keys(c.Agents)), edges) {
		if len(group) < 2 {
			continue
		}
		loop := shortestLoop(group[0], group, edges)
		if len(loop) == 0 {
			continue
		}
		steps := make([]string, len(loop))
		from := group[0]
		for i, e := range loop {
			steps[i] = fmt.Sprintf("%s's task events prompt %s (%s at %s)", from, e.to, Path("hooks", e.hook), c.posString(e.path))
			from = e.to
		}
		d := c.Diag(loop[0].path, "hooks prompt agents in a loop: %s; at run time a prompt caused through more than %d hooks is dropped, but each turn of the loop is a task: limit the hooks' agents or prompt once", strings.Join(steps, ", "), MaxHookChain)
		d.Warning = true
		ds = append(ds, d)
	}
	return ds
}

// posString is path's position as "file:line:col", or the path itself
// when it has none.
func (c *Config) posString(path string) string {
	p := c.Pos(path)
	if !p.IsValid() {
		return path
	}
	return fmt.Sprintf("%s:%d:%d", filepath.Base(p.Filename()), p.Line(), p.Column())
}

// hookEdges maps each agent to the prompts its task events cause, in hook
// name order: prompt hooks on a task event, and run hooks whose command is
// plainly `actctl prompt AGENT`.
func (c *Config) hookEdges() map[string][]hookEdge {
	all := slices.Sorted(maps.Keys(c.Agents))
	edges := map[string][]hookEdge{}
	for _, name := range slices.Sorted(maps.Keys(c.Hooks)) {
		h := c.Hooks[name]
		if !slices.Contains(taskEvents, h.On) {
			continue
		}
		e, ok := hookPrompts(name, h)
		if _, known := c.Agents[e.to]; !ok || !known {
			continue
		}
		from := h.Agents
		if len(from) == 0 {
			from = all
		}
		for _, a := range from {
			if _, known := c.Agents[a]; known && a != e.to {
				edges[a] = append(edges[a], e)
			}
		}
	}
	return edges
}

// hookPrompts returns the prompt hook h makes, if one can be seen.
func hookPrompts(name string, h Hook) (hookEdge, bool) {
	switch {
	case h.Prompt != nil:
		return hookEdge{hook: name, path: Path("hooks", name, "prompt", "agent"), to: h.Prompt.Agent}, true
	case h.Run != nil:
		if to, i := actctlPromptAgent(h.Run.Command, h.Run.Args); to != "" {
			return hookEdge{hook: name, path: Path("hooks", name, "run", "args") + fmt.Sprintf("[%d]", i), to: to}, true
		}
	}
	return hookEdge{}, false
}

// actctlPromptAgent returns the agent of `actctl [flags] prompt [flags]
// AGENT ...` and its index in args; "" for any other command.
func actctlPromptAgent(command string, args []string) (string, int) {
	if filepath.Base(command) != "actctl" {
		return "", 0
	}
	takesValue := map[string]bool{"-C": true, "--C": true, "--home": true, "-o": true, "--output": true, "-p": true, "--prompt": true}
	seenPrompt := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case takesValue[a]:
			i++
		case strings.HasPrefix(a, "-"):
		case !seenPrompt && a == "prompt":
			seenPrompt = true
		case seenPrompt:
			return a, i
		default:
			return "", 0 // another command
		}
	}
	return "", 0
}

// stronglyConnected returns the groups of nodes that reach each other
// (Tarjan's algorithm), each sorted, in the order of their first node.
func stronglyConnected(nodes []string, edges map[string][]hookEdge) [][]string {
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var groups [][]string
	var visit func(n string)
	visit = func(n string) {
		index[n], low[n] = len(index), len(index)
		stack = append(stack, n)
		onStack[n] = true
		for _, e := range edges[n] {
			if _, seen := index[e.to]; !seen {
				visit(e.to)
				low[n] = min(low[n], low[e.to])
			} else if onStack[e.to] {
				low[n] = min(low[n], index[e.to])
			}
		}
		if low[n] != index[n] {
			return
		}
		var g []string
		for {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[top] = false
			g = append(g, top)
			if top == n {
				break
			}
		}
		slices.Sort(g)
		groups = append(groups, g)
	}
	for _, n := range nodes {
		if _, seen := index[n]; !seen {
			visit(n)
		}
	}
	slices.SortFunc(groups, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return groups
}

// shortestLoop returns the edges of a shortest loop from start back to
// itself within group (breadth first, edges in hook order).
func shortestLoop(start string, group []string, edges map[string][]hookEdge) []hookEdge {
	type step struct {
		prev string
		edge hookEdge
	}
	in := map[string]bool{}
	for _, n := range group {
		in[n] = true
	}
	via := map[string]step{}
	queue := []string{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, e := range edges[n] {
			if !in[e.to] {
				continue
			}
			if e.to == start {
				loop := []hookEdge{e}
				for at := n; at != start; at = via[at].prev {
					loop = append(loop, via[at].edge)
				}
				slices.Reverse(loop)
				return loop
			}
			if _, seen := via[e.to]; !seen {
				via[e.to] = step{prev: n, edge: e}
				queue = append(queue, e.to)
			}
		}
	}
	return nil
}
