package dashboard

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/actctl/actctl/tasklog"
	"github.com/actctl/actctl/up"
)

// Conversations (docs/dashboard.md, "Conversations"): a service's or
// employee's sessions on its running process, each turn a task whose log
// the page shows, followed live while it runs. Every route works as a
// plain form (the answer is a redirect to the conversation's page) and
// from the page's script (X-Requested-With: a short answer instead).

// convoRoutes adds the conversation and task-cancel routes to m.
func (s *Server) convoRoutes(m *http.ServeMux) {
	m.HandleFunc("POST /agents/{name}/tasks/{id}/cancel", s.cancelTask)
	m.HandleFunc("POST /agents/{name}/sessions", s.newConversation)
	m.HandleFunc("GET /agents/{name}/sessions/{sid}", s.conversationPage)
	m.HandleFunc("GET /agents/{name}/sessions/{sid}/live", s.serveTurnLive)
	m.HandleFunc("POST /agents/{name}/sessions/{sid}/prompt", s.say)
	m.HandleFunc("POST /agents/{name}/sessions/{sid}/cancel", s.cancelTurn)
	m.HandleFunc("POST /agents/{name}/sessions/{sid}/answer", s.answer)
	m.HandleFunc("POST /agents/{name}/sessions/{sid}/close", s.closeConversation)
}

// fromScript reports whether the page's script sent r (not a form).
func fromScript(r *http.Request) bool { return r.Header.Get("X-Requested-With") != "" }

// outcome answers a state change: a form goes to back, a script gets the
// outcome as text (409 with the error).
func outcome(w http.ResponseWriter, r *http.Request, back string, err error, ok string) {
	if !fromScript(r) && err == nil {
		http.Redirect(w, r, back, http.StatusSeeOther)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if err != nil {
		w.WriteHeader(http.StatusConflict)
		fmt.Fprintf(w, "dashboard: %v", err)
		return
	}
	fmt.Fprint(w, ok)
}

// cancelTask cancels a queued or running task (POST
// /agents/NAME/tasks/ID/cancel) and sends a form back to the page it came
// from (back: "task", else the agent's page).
func (s *Server) cancelTask(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	id, ok := taskID(w, r)
	if !ok || !s.knownAgent(w, name) || !parseForm(w, r, "the form") {
		return
	}
	err := s.src.Sessions().CancelTask(name, id)
	s.AgentChanged(name)
	if a, aerr := s.src.Agent(name); aerr == nil && err == nil {
		s.tasksChanged(a, "task:failed") // its queue, and a waiting task's row: no event says it ended
	}
	back := "/agents/" + url.PathEscape(name)
	if r.PostForm.Get("back") == "task" {
		back += "/tasks/" + strconv.FormatUint(id, 10)
	}
	outcome(w, r, back, err, fmt.Sprintf("task %d cancelled", id))
}

// knownAgent answers 404 for an agent up does not run.
func (s *Server) knownAgent(w http.ResponseWriter, name string) bool {
	if _, err := s.src.Agent(name); err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return false
	}
	return true
}

// convoPath is a conversation's page.
func convoPath(name, sid string) string {
	return "/agents/" + url.PathEscape(name) + "/sessions/" + url.PathEscape(sid)
}

// newConversation opens a conversation (POST /agents/NAME/sessions) and
// goes to its page.
func (s *Server) newConversation(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if !s.knownAgent(w, name) {
		return
	}
	sid, err := s.src.Sessions().NewConversation(r.Context(), name)
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusConflict)
		return
	}
	http.Redirect(w, r, convoPath(name, sid), http.StatusSeeOther)
}

// turnView is one turn as the conversation's page shows it: the prompt
// and what its task's log holds so far.
type turnView struct {
	up.ConvTurn
	Items   []Item
	Running bool
}

// conversationPage shows a conversation (GET /agents/NAME/sessions/SID):
// its turns, the form for the next one, Cancel while one runs, a
// permission request waiting for the person, and the agent's other
// conversations.
func (s *Server) conversationPage(w http.ResponseWriter, r *http.Request) {
	name, sid := r.PathValue("name"), r.PathValue("sid")
	if !s.knownAgent(w, name) {
		return
	}
	ss := s.src.Sessions()
	c, err := ss.Conversation(name, sid)
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return
	}
	var turns []turnView
	for _, t := range c.Turns {
		data, _ := s.src.TaskLog(name, t.Task)
		items, _ := ReadLog(data)
		turns = append(turns, turnView{ConvTurn: t, Items: items, Running: t.Task == c.Running})
	}
	all, _ := ss.Conversations(name)
	render(w, "conversation", struct {
		page
		C     up.Conversation
		Turns []turnView
		All   []up.Conversation
	}{s.page(name+" conversation", "conversation", name), c, turns, all})
}

// say starts the conversation's next turn (POST .../prompt, text): a
// form goes back to the conversation's page, a script gets {"task": ID}
// and follows the turn (serveTurnLive).
func (s *Server) say(w http.ResponseWriter, r *http.Request) {
	name, sid := r.PathValue("name"), r.PathValue("sid")
	if !s.knownAgent(w, name) || !parseForm(w, r, "the prompt") {
		return
	}
	text := strings.TrimSpace(r.PostForm.Get("text"))
	if text == "" {
		http.Error(w, "dashboard: empty prompt", http.StatusBadRequest)
		return
	}
	// The turn outlives the request: the page follows it, or comes back.
	task, err := s.src.Sessions().Say(context.WithoutCancel(r.Context()), name, sid, text)
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusConflict)
		return
	}
	s.AgentChanged(name)
	if !fromScript(r) {
		http.Redirect(w, r, convoPath(name, sid), http.StatusSeeOther)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(mustJSON(map[string]uint64{"task": task}))
}

// cancelTurn cancels the conversation's running turn (POST .../cancel).
func (s *Server) cancelTurn(w http.ResponseWriter, r *http.Request) {
	name, sid := r.PathValue("name"), r.PathValue("sid")
	if !s.knownAgent(w, name) {
		return
	}
	err := s.src.Sessions().CancelTurn(name, sid)
	outcome(w, r, convoPath(name, sid), err, "cancelled")
}

// answer is the person's answer to a permission request (POST
// .../answer, call and option).
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	name, sid := r.PathValue("name"), r.PathValue("sid")
	if !s.knownAgent(w, name) || !parseForm(w, r, "the answer") {
		return
	}
	err := s.src.Sessions().Answer(name, sid, r.PostForm.Get("call"), r.PostForm.Get("option"))
	outcome(w, r, convoPath(name, sid), err, "answered")
}

// closeConversation closes a conversation (POST .../close) and goes back
// to the agent's page: its session ends (a running turn with it), and an
// on-demand agent's process stops once no conversation holds it.
func (s *Server) closeConversation(w http.ResponseWriter, r *http.Request) {
	name, sid := r.PathValue("name"), r.PathValue("sid")
	if !s.knownAgent(w, name) {
		return
	}
	err := s.src.Sessions().CloseConversation(name, sid)
	s.AgentChanged(name)
	outcome(w, r, "/agents/"+url.PathEscape(name), err, "closed")
}

// serveTurnLive streams a turn's task log as items (GET .../live?task=ID),
// from its start: a turn whose log has not begun yet (it waits for the
// turn before it, or in an employee's queue) is waited for. Once the task
// has ended, the rest of its log is sent, then an "end" event with how
// it ended (its summary's stop reason and error), and the stream ends.
func (s *Server) serveTurnLive(w http.ResponseWriter, r *http.Request) {
	name, sid := r.PathValue("name"), r.PathValue("sid")
	id, err := strconv.ParseUint(r.URL.Query().Get("task"), 10, 64)
	if err != nil {
		http.Error(w, "dashboard: task= wants a task id (a number)", http.StatusBadRequest)
		return
	}
	c, err := s.src.Sessions().Conversation(name, sid)
	if err != nil || !slices.ContainsFunc(c.Turns, func(t up.ConvTurn) bool { return t.Task == id }) {
		http.Error(w, fmt.Sprintf("dashboard: conversation %s has no turn %d", sid, id), http.StatusNotFound)
		return
	}
	fl, release, ok := s.openStream(w, r)
	if !ok {
		return
	}
	defer release()
	var path string
	if !s.waitUntil(r.Context(), func() bool { p, err := s.src.TaskLogPath(name, id); path = p; return err == nil }) {
		return
	}
	ended, stop := context.WithCancel(r.Context())
	defer stop()
	var sum tasklog.Summary
	go func() {
		if s.waitUntil(ended, func() bool { t, err := s.src.Task(name, id); sum = t; return err == nil }) {
			stop()
		}
	}()
	var lr LogReader
	var read int64
	item := func(line []byte) {
		for _, it := range lr.Line(line) {
			fmt.Fprintf(w, "event: item\ndata: %s\n\n", mustJSON(it))
		}
		fl.Flush()
	}
	_ = tasklog.Follow(ended, path, 0, func(line []byte) {
		read += int64(len(line)) + 1
		item(line)
	})
	if r.Context().Err() != nil {
		return
	}
	// Ended: the log is whole (its summary comes after it); what Follow
	// had not read yet, then the end.
	if data, err := os.ReadFile(path); err == nil && read <= int64(len(data)) {
		for _, line := range bytes.SplitAfter(data[read:], []byte("\n")) {
			if bytes.HasSuffix(line, []byte("\n")) {
				item(bytes.TrimSuffix(line, []byte("\n")))
			}
		}
	}
	fmt.Fprintf(w, "event: end\ndata: %s\n\n", mustJSON(map[string]string{"stopReason": sum.StopReason, "error": sum.Error}))
	fl.Flush()
}

// waitUntil returns once done holds (true), looking again at every
// message of the live hub (a task started or ended, an event), or false
// when ctx ends first.
func (s *Server) waitUntil(ctx context.Context, done func() bool) bool {
	sub := s.live.subscribe()
	defer s.live.unsubscribe(sub)
	for !done() {
		select {
		case <-sub.c:
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// tmplFuncs are the templates' helpers: the data of the "ask" and
// "convos" templates.
var tmplFuncs = template.FuncMap{
	"askOf": func(agent, session string, it Item) askView { return askView{agent, session, it} },
	"convosOf": func(agent string, all []up.Conversation) convosView {
		return convosView{agent, all}
	},
	"cancelOf": func(agent string, task uint64) cancelView { return cancelView{agent, task} },
}

// cancelView is a task's Cancel button.
type cancelView struct {
	Agent string
	Task  uint64
}

// askView is a permission request put to the person, with where its
// answer goes.
type askView struct {
	Agent, Session string
	Item           Item
}

// convosView is an agent's conversations.
type convosView struct {
	Agent string
	All   []up.Conversation
}
