package dashboard

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// pages are the parsed templates, one set per page.
var pages = func() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, p := range []string{"agents", "agent", "task", "events", "bulk", "canvases", "conversation"} {
		out[p] = template.Must(template.New(p).Funcs(tmplFuncs).ParseFS(templateFS, "templates/base.html", "templates/"+p+".html"))
	}
	return out
}()

// TaskRows bounds the tasks an agent's page lists (the last ones).
const TaskRows = 50

func (s *Server) routes() {
	m := http.NewServeMux()
	static, _ := fs.Sub(assetFS, "assets")
	m.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /{$}", s.agentsPage)
	m.HandleFunc("GET /api/agents", s.agentsJSON)
	m.HandleFunc("GET /api/instance", s.instanceJSON)
	m.HandleFunc("GET /live", s.serveLive)
	m.HandleFunc("GET /events", s.eventsPage)
	m.HandleFunc("GET /canvases", s.canvasesPage)
	m.HandleFunc("GET /agents/{name}", s.agentPage)
	m.HandleFunc("GET /agents/{name}/tasks/{id}", s.taskPage)
	m.HandleFunc("GET /agents/{name}/tasks/{id}/live", s.serveTaskLive)
	m.HandleFunc("GET /agents/{name}/canvas", s.canvas)
	m.HandleFunc("GET /agents/{name}/stderr/live", s.serveStderrLive)
	m.HandleFunc("POST /bulk", s.bulk)
	m.HandleFunc("POST /agents/{name}/prompt", s.prompt)
	m.HandleFunc("POST /agents/{name}/tasks/{id}/rerun", s.rerun)
	s.convoRoutes(m)
	m.HandleFunc("POST /agents/{name}/{op}", s.control)
	s.mux = m
}

// page is what every template gets beside its own data: Instance
// names this run of up, so that a page left open sees when its up is
// gone (docs/dashboard.md, "Live updates").
type page struct {
	Title, Page, Agent, Instance string
}

func (s *Server) page(title, name, agent string) page {
	return page{Title: title, Page: name, Agent: agent, Instance: s.instance}
}

// instanceJSON says which run of up answers (GET /api/instance): a page
// whose stream failed asks it whether its up is still there.
func (s *Server) instanceJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(map[string]string{"instance": s.instance}))
}

func render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := pages[name].ExecuteTemplate(w, name+".html", data); err != nil {
		// Headers are gone; the page ends where the error happened.
		return
	}
}

func (s *Server) cards() []card {
	now := time.Now()
	var out []card
	for _, a := range s.src.Agents() {
		out = append(out, cardOf(a, now))
	}
	return out
}

func (s *Server) agentsPage(w http.ResponseWriter, r *http.Request) {
	render(w, "agents", s.agentsView(filterOf(r.URL.Query())))
}

func (s *Server) agentsJSON(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	cards := s.cards()
	if cards == nil {
		cards = []card{}
	}
	w.Write(mustJSON(cards))
}

func (s *Server) agentPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	d, err := s.src.Detail(name)
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return
	}
	canvas := ""
	if d.Archetype == "employee" {
		canvas, _ = s.src.Canvas(name)
	}
	var stderr []string
	var from int64
	if p, err := s.src.StderrPath(name); err == nil {
		stderr, from = stderrTail(p)
	}
	var convos []up.Conversation
	if talks := d.Archetype == "service" || d.Archetype == "employee" || d.OnDemand; talks {
		convos, _ = s.src.Sessions().Conversations(name)
	}
	render(w, "agent", struct {
		page
		D          Detail
		Card       card
		Tasks      []taskRow
		Frame      canvasFrame
		Stderr     []string
		StderrFrom int64
		Convos     []up.Conversation
	}{s.page(name, "agent", name), d, cardOf(d.Agent, time.Now()), s.taskRows(name, d.Tasks), canvasFrame{name, canvas != ""}, stderr, from, convos})
}

// canvasFrame is one employee's canvas frame (the template "canvas"):
// Has says whether it drew one yet.
type canvasFrame struct {
	Name string
	Has  bool
}

// canvasesPage is the canvas wall: every employee's canvas, each in
// the sandboxed frame of its agent's page (GET /canvases).
func (s *Server) canvasesPage(w http.ResponseWriter, r *http.Request) {
	var frames []canvasFrame
	for _, a := range s.src.Agents() {
		if a.Archetype != "employee" {
			continue
		}
		html, _ := s.src.Canvas(a.Name)
		frames = append(frames, canvasFrame{a.Name, html != ""})
	}
	render(w, "canvases", struct {
		page
		Canvases []canvasFrame
	}{s.page("Canvases", "canvases", ""), frames})
}

// taskRows are the last TaskRows tasks, newest first, with their
// permission decisions read from their logs.
func (s *Server) taskRows(name string, tasks []tasklog.Summary) []taskRow {
	if len(tasks) > TaskRows {
		tasks = tasks[len(tasks)-TaskRows:]
	}
	var out []taskRow
	for _, t := range slices.Backward(tasks) {
		out = append(out, s.rowOf(name, t))
	}
	return out
}

// taskID is the {id} of a task's route; when it is not a number it
// answers so and returns false.
func taskID(w http.ResponseWriter, r *http.Request) (uint64, bool) {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "dashboard: a task id is a number", http.StatusBadRequest)
	}
	return id, err == nil
}

func (s *Server) taskPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	id, ok := taskID(w, r)
	if !ok {
		return
	}
	data, err := s.src.TaskLog(name, id)
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return
	}
	items, perms := ReadLog(data)
	var row *taskRow // nil while the task runs
	rerun := false
	if sum, err := s.src.Task(name, id); err == nil {
		r := summaryRow(sum)
		row = &r
		a, _ := s.src.Agent(name)
		rerun = rerunnable(a, sum) == nil
	}
	render(w, "task", struct {
		page
		Task  uint64
		Row   *taskRow
		Rerun bool
		Items []Item
		Perms Permissions
	}{s.page(name+" task "+strconv.FormatUint(id, 10), "task", name), id, row, rerun, items, perms})
}

func (s *Server) eventsPage(w http.ResponseWriter, r *http.Request) {
	fa, fe := r.URL.Query().Get("agent"), r.URL.Query().Get("event")
	var entries []Entry
	for _, e := range slices.Backward(s.live.timeline()) {
		if (fa == "" || e.Agent == fa) && strings.HasPrefix(e.Event, fe) {
			entries = append(entries, e)
		}
	}
	entries = grouped(entries)
	var names []string
	for _, a := range s.src.Agents() {
		names = append(names, a.Name)
	}
	render(w, "events", struct {
		page
		FAgent, FEvent string
		Agents         []string
		Entries        []Entry
		Hooks          []Hook
		Max            int
	}{s.page("Events", "events", ""), fa, fe, names, entries, s.src.Hooks(), TimelineMax})
}

// grouped puts each hook run right under its event's entry (the
// delivery it ran for), when that entry is in entries; the rest keep
// their order (newest first).
func grouped(entries []Entry) []Entry {
	shown := map[uint64]bool{}
	runs := map[uint64][]Entry{}
	for _, e := range entries {
		shown[e.Seq] = true
	}
	for _, e := range entries {
		if e.Of != 0 && shown[e.Of] {
			runs[e.Of] = append(runs[e.Of], e)
		}
	}
	out := make([]Entry, 0, len(entries))
	for _, e := range entries {
		if e.Of != 0 && shown[e.Of] {
			continue
		}
		out = append(out, e)
		out = append(out, runs[e.Seq]...)
	}
	return out
}
