package dashboard

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// filter is what the agents page shows of the agents: a state, an
// archetype, a backend (each "" for any) and words the name or the
// template holds. Query parameters, so that it works without script.
type filter struct {
	State, Archetype, Backend, Search string
}

func filterOf(q url.Values) filter {
	return filter{State: q.Get("state"), Archetype: q.Get("archetype"), Backend: q.Get("backend"), Search: strings.TrimSpace(q.Get("q"))}
}

// On says whether the filter hides anything.
func (f filter) On() bool { return f != filter{} }

func (f filter) keeps(c card) bool {
	return (f.State == "" || c.State == f.State) && (f.Archetype == "" || c.Archetype == f.Archetype) &&
		(f.Backend == "" || c.Backend == f.Backend) &&
		(f.Search == "" || strings.Contains(strings.ToLower(c.Name+" "+c.Template), strings.ToLower(f.Search)))
}

// stateRank orders the agents page: those that need a person first
// (crashed, fatal, backing off), then those changing, running, stopped.
func stateRank(state string) int {
	switch state {
	case "crashed", "fatal":
		return 0
	case "backoff":
		return 1
	case "starting", "stopping":
		return 2
	case "running", StateInConversation:
		return 3
	case "stopped":
		return 4
	}
	return 5
}

// count is how many agents are in one state.
type count struct {
	State, Class string
	N            int
}

// agentsView is the agents page: the counts by state of every agent,
// the choices of the filter, and the cards it keeps, state first.
type agentsView struct {
	page
	Filter               filter
	Counts               []count
	Total                int
	Archetypes, Backends []string
	States               []string
	Cards                []card
}

func (s *Server) agentsView(f filter) agentsView {
	v := agentsView{page: s.page("Agents", "agents", ""), Filter: f}
	all := s.cards()
	slices.SortFunc(all, func(a, b card) int {
		return cmp.Or(cmp.Compare(stateRank(a.State), stateRank(b.State)), cmp.Compare(a.Name, b.Name))
	})
	for _, c := range all {
		if i := slices.IndexFunc(v.Counts, func(n count) bool { return n.State == c.State }); i >= 0 {
			v.Counts[i].N++
		} else {
			v.Counts = append(v.Counts, count{State: c.State, Class: c.Class, N: 1})
		}
		v.Archetypes, v.Backends = addOnce(v.Archetypes, c.Archetype), addOnce(v.Backends, c.Backend)
		if f.keeps(c) {
			c.Select = !c.OnDemand // no bulk start or stop: a conversation starts it
			v.Cards = append(v.Cards, c)
		}
	}
	for _, n := range v.Counts {
		v.States = append(v.States, n.State)
	}
	v.Total = len(all)
	slices.Sort(v.Archetypes)
	slices.Sort(v.Backends)
	return v
}

func addOnce(list []string, s string) []string {
	if s == "" || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// bulkResult is one agent's outcome of a bulk action.
type bulkResult struct {
	Agent, Text string
	Failed      bool
}

// bulk starts, stops or restarts the agents selected on the agents page
// (POST /bulk: op, agent...). Stop asks first: a page to confirm it
// (confirm=yes), which needs no script.
func (s *Server) bulk(w http.ResponseWriter, r *http.Request) {
	if !parseForm(w, r, "the form") {
		return
	}
	op, names := r.PostForm.Get("op"), slices.Compact(slices.Sorted(slices.Values(r.PostForm["agent"])))
	switch op {
	case OpStart, OpStop, OpRestart:
	default:
		http.Error(w, fmt.Sprintf("dashboard: no action %q (start, stop, restart)", op), http.StatusBadRequest)
		return
	}
	if len(names) == 0 {
		http.Error(w, "dashboard: no agent selected: tick the agents to "+op+" on the agents page", http.StatusBadRequest)
		return
	}
	for _, n := range names {
		if _, err := s.src.Agent(n); err != nil {
			http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
			return
		}
	}
	data := struct {
		page
		Op      string
		Agents  []string
		Confirm bool
		Results []bulkResult
	}{page: s.page(op+" agents", "bulk", ""), Op: op, Agents: names}
	if op == OpStop && r.PostForm.Get("confirm") != "yes" {
		data.Confirm = true
		render(w, "bulk", data)
		return
	}
	for _, n := range names {
		res := bulkResult{Agent: n, Text: op + " " + n + ": done"}
		if err := s.src.Control(r.Context(), op, n); err != nil {
			res.Text, res.Failed = fmt.Sprintf("%s %s: %v", op, n, err), true
		}
		s.AgentChanged(n)
		data.Results = append(data.Results, res)
	}
	render(w, "bulk", data)
}
