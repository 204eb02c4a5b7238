package dashboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

// replyQueue bounds the reply pieces waiting for a slow page; more ends
// the page's wait (a service's turn is cancelled, an employee's task
// goes on).
const replyQueue = 4096

// errSlowPage ends a prompt whose page does not read its reply.
var errSlowPage = errors.New("the page did not read the reply fast enough")

// control starts, stops or restarts an agent (POST /agents/NAME/OP).
// A form (no script) is sent back to the agent's page; a script gets
// the outcome as text.
func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	name, op := r.PathValue("name"), r.PathValue("op")
	switch op {
	case OpStart, OpStop, OpRestart:
	default:
		http.Error(w, fmt.Sprintf("dashboard: no action %q (start, stop, restart)", op), http.StatusNotFound)
		return
	}
	if _, err := s.src.Agent(name); err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return
	}
	err := s.src.Control(r.Context(), op, name)
	s.AgentChanged(name)
	if r.Header.Get("X-Requested-With") == "" {
		http.Redirect(w, r, "/agents/"+name, http.StatusSeeOther)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err != nil {
		w.WriteHeader(http.StatusConflict)
		fmt.Fprintf(w, "%s %s: %v", op, name, err)
		return
	}
	fmt.Fprintf(w, "%s %s: done", op, name)
}

// rerun queues an ended task's prompt again as a new task of its
// employee (POST /agents/NAME/tasks/ID/rerun, a form) and sends the page
// to the agent's. A prompt its summary may have cut (tasklog.PromptMax
// characters) is refused: it would not be the same prompt.
func (s *Server) rerun(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	id, ok := taskID(w, r)
	if !ok {
		return
	}
	a, err := s.src.Agent(name)
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return
	}
	sum, err := s.src.Task(name, id)
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return
	}
	if err := rerunnable(a, sum); err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusConflict)
		return
	}
	if _, err := s.src.Enqueue(r.Context(), name, sum.Prompt); err != nil {
		http.Error(w, fmt.Sprintf("dashboard: run task %d again: %v", id, err), http.StatusConflict)
		return
	}
	s.AgentChanged(name)
	http.Redirect(w, r, "/agents/"+name, http.StatusSeeOther)
}

// rerunnable says why task sum of agent a cannot run again: a is not an
// employee, or its summary may have cut its prompt.
func rerunnable(a Agent, sum tasklog.Summary) error {
	if a.Archetype != "employee" {
		return fmt.Errorf("%s is a %s: only an employee's tasks are run again", a.Name, a.Archetype)
	}
	if utf8.RuneCountInString(sum.Prompt) >= tasklog.PromptMax || strings.TrimSpace(sum.Prompt) == "" {
		return fmt.Errorf("task %d's prompt is not kept whole (its summary keeps %d characters): prompt it again from the agent's page", sum.Task, tasklog.PromptMax)
	}
	return nil
}

// prompt gives the agent a person's prompt and streams the reply as
// JSON lines of Items, the last one {"kind":"done",...} with the
// outcome (or {"kind":"error"}): the stop reason is said there once, not
// also as the "stop" item of the turn's answer.
func (s *Server) prompt(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !parseForm(w, r, "the prompt") {
		return
	}
	text := strings.TrimSpace(r.PostForm.Get("text"))
	if text == "" {
		http.Error(w, "dashboard: empty prompt", http.StatusBadRequest)
		return
	}
	if _, err := s.src.Agent(name); err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return
	}
	fl, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	items := make(chan Item, replyQueue)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for it := range items {
			w.Write(append(mustJSON(it), '\n'))
			if fl != nil && len(items) == 0 {
				fl.Flush()
			}
		}
	}()
	var lr LogReader
	sink := func(kind string, v any) {
		raw, ok := v.(json.RawMessage)
		if kind != "message" || !ok {
			return
		}
		for _, it := range lr.Line(raw) {
			if it.Kind == "stop" {
				continue // the last item says it
			}
			select {
			case items <- it:
			default:
				cancel(errSlowPage)
			}
		}
	}
	out, err := s.src.Prompt(ctx, name, text, up.Sink(sink))
	last := Item{Kind: "done", Status: out.StopReason, Text: fmt.Sprintf("task %d", out.Task)}
	if err != nil {
		last = Item{Kind: "error", Text: err.Error()}
	}
	items <- last // the reader is draining: there is room soon
	close(items)
	<-done
}

// parseForm reads r's form; when it cannot (over MaxBody, malformed) it
// answers why, naming what the form carries, and returns false.
func parseForm(w http.ResponseWriter, r *http.Request, what string) bool {
	var mbe *http.MaxBytesError
	if err := r.ParseForm(); errors.As(err, &mbe) {
		http.Error(w, fmt.Sprintf("dashboard: %s is over %d bytes", what, MaxBody), http.StatusRequestEntityTooLarge)
		return false
	} else if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

// canvas serves an employee's canvas, in a sandbox of its own: no
// origin (so no cookie, no request to the dashboard's API), inline
// script and style only, nothing fetched.
func (s *Server) canvas(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	a, err := s.src.Agent(name)
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return
	}
	if a.Archetype != "employee" {
		http.Error(w, fmt.Sprintf("dashboard: %s is a %s: only employees have a live canvas", name, a.Archetype), http.StatusNotFound)
		return
	}
	html, err := s.src.Canvas(name)
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'")
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, html)
}
