package dashboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/actctl/actctl/hooks"
	"github.com/actctl/actctl/supervise"
	"github.com/actctl/actctl/tasklog"
)

// Bounds of the live parts.
const (
	// TimelineMax is how many entries the events page keeps.
	TimelineMax = 1000
	// TimelineBytes bounds what the timeline keeps in all (Entry.size):
	// the oldest entries go first when a new one would pass it.
	TimelineBytes = 2 << 20
	// DataMax bounds an entry's data and a hook run's outcome, in bytes:
	// the rest is cut with a marker saying how much was cut.
	DataMax = 4 << 10
	// liveQueue bounds what waits for one live connection; more is
	// dropped (counted) and the page told to reload.
	liveQueue = 256
)

// Entry is one line of the timeline: an event, or a hook's run.
type Entry struct {
	Seq        uint64    `json:"seq"`
	Time       time.Time `json:"time"`
	Event      string    `json:"event"`
	Agent      string    `json:"agent,omitempty"`
	Hook       string    `json:"hook,omitempty"`
	Outcome    string    `json:"outcome,omitempty"` // a hook's: "ok", "failed: ...", "dropped: ..."
	DurationMs int64     `json:"durationMs,omitempty"`
	Data       string    `json:"data,omitempty"` // the event's data, as JSON (cut at DataMax)
	// Task is the task the event is about (its data's "task"), 0 when none.
	Task uint64 `json:"task,omitempty"`
	// Of is, on a hook run, the Seq of its event's entry (the delivery
	// it ran for), 0 when that entry is gone or was never kept.
	Of uint64 `json:"of,omitempty"`
	// at is a hook run's event's time, which finds that event's entry.
	at time.Time
}

// entryOverhead is what an entry costs besides its strings' bytes.
const entryOverhead = 128

// size is what e costs the timeline, in bytes.
func (e *Entry) size() int {
	return entryOverhead + len(e.Event) + len(e.Agent) + len(e.Hook) + len(e.Outcome) + len(e.Data)
}

// message is one server-sent event.
type message struct {
	event string
	data  []byte
}

// hub keeps the timeline and passes every change to the live
// connections, never waiting for one (a full queue drops and counts).
type hub struct {
	src     Source
	mu      sync.Mutex
	seq     uint64
	entries []Entry // the last ones, oldest first: at most TimelineMax of at most TimelineBytes
	bytes   int     // what entries cost (Entry.size)
	subs    map[*sub]struct{}
	dropped atomic.Uint64
	// file keeps the timeline across runs of up (timeline.go); nil: in
	// memory only.
	file *timelineFile
	logf func(format string, args ...any)
}

type sub struct {
	c    chan message
	lost atomic.Bool // a message was dropped: the page must reload
}

func newHub(src Source) *hub { return &hub{src: src, subs: map[*sub]struct{}{}} }

// Follow feeds the dashboard the observations of a hooks bus until ctx
// ends (or c is closed): the timeline, and the card of the agent an
// event is about.
func (s *Server) Follow(ctx context.Context, c <-chan hooks.Observation) {
	for {
		select {
		case <-ctx.Done():
			return
		case ob, ok := <-c:
			if !ok {
				return
			}
			s.Observe(ob)
		}
	}
}

// Observe takes one observation (see Follow).
func (s *Server) Observe(ob hooks.Observation) {
	e := entryOf(ob, time.Now())
	s.live.add(e)
	if ob.Hook == nil && ob.Event.Agent != "" {
		s.agentEvent(ob.Event)
	}
}

// agentEvent sends the card of the agent ev is about. A process event
// says the state it left the agent in: the card shows that state (a
// backoff of one second is seen even when this runs later than that),
// and the next event the next one.
func (s *Server) agentEvent(ev hooks.Event) {
	a, err := s.src.Agent(ev.Agent)
	if err != nil {
		s.AgentChanged(ev.Agent)
		return
	}
	if st, ok := ev.Data["state"].(string); ok && strings.HasPrefix(ev.Name, "process:") && st != string(a.State) {
		a.State, a.NextStart = supervise.State(st), nil
		if st != "running" {
			a.Pid, a.StartedAt = 0, nil
		}
		if d, err := time.ParseDuration(fmt.Sprint(ev.Data["backoff"])); err == nil && st == "backoff" {
			t := ev.Time.Add(d)
			a.NextStart = &t
		}
		if e, ok := ev.Data["error"].(string); ok {
			a.LastError = e
		}
	}
	s.live.send(message{event: "agent", data: mustJSON(cardOf(a, time.Now()))})
	s.tasksChanged(a, ev.Name)
}

// AgentChanged sends the agent's card, as it is now, to the live pages.
func (s *Server) AgentChanged(name string) {
	a, err := s.src.Agent(name)
	if err != nil {
		s.live.send(message{event: "gone", data: mustJSON(map[string]string{"name": name})})
		return
	}
	s.live.send(message{event: "agent", data: mustJSON(cardOf(a, time.Now()))})
}

// CanvasUpdated tells the live pages that agent's canvas changed.
func (s *Server) CanvasUpdated(agent string) {
	s.live.send(message{event: "canvas", data: mustJSON(map[string]string{"name": agent})})
}

// TaskStarted tells the live pages that a task of agent began: an
// agent's page follows its log.
func (s *Server) TaskStarted(agent string, task uint64) {
	s.live.send(message{event: "task", data: mustJSON(map[string]any{"name": agent, "task": task})})
	a, err := s.src.Agent(agent)
	if err != nil {
		s.AgentChanged(agent) // gone
		return
	}
	s.live.send(message{event: "agent", data: mustJSON(cardOf(a, time.Now()))}) // its running task
	s.tasksChanged(a, "")                                                       // its queue
}

// Dropped is how many live messages were dropped for slow pages.
func (s *Server) Dropped() uint64 { return s.live.dropped.Load() }

// entryOf is the timeline's entry of ob: an event with its data, or a
// hook run with its outcome (its event's entry has the data: it is kept
// once), stamped when its outcome came (now): a hook may have waited to
// run, so its event's time plus its duration may be earlier than its end.
func entryOf(ob hooks.Observation, now time.Time) Entry {
	ev := ob.Event
	e := Entry{Time: ev.Time, Event: ev.Name, Agent: ev.Agent, Task: taskOf(ev.Data)}
	r := ob.Hook
	if r == nil {
		if len(ev.Data) > 0 {
			e.Data = cut(dataJSON(ev.Data), DataMax)
		}
		return e
	}
	e.Hook, e.DurationMs, e.Outcome = r.Hook, r.Duration.Milliseconds(), "ok"
	e.Time, e.at = now, ev.Time
	switch {
	case r.Dropped:
		e.Outcome = "dropped: " + r.Err.Error()
	case r.Err != nil:
		e.Outcome = "failed: " + r.Err.Error()
	}
	e.Outcome = cut(e.Outcome, DataMax)
	return e
}

// taskOf is the task an event's data names ("task"), 0 when none.
func taskOf(data map[string]any) uint64 {
	switch v := data["task"].(type) {
	case uint64:
		return v
	case int:
		return uint64(max(v, 0))
	case int64:
		return uint64(max(v, 0))
	case float64:
		if v > 0 && v == float64(uint64(v)) {
			return uint64(v)
		}
	}
	return 0
}

// dataJSON is an event's data as JSON, escaped for nothing but JSON: the
// page escapes it for HTML once, the live pages set it as text.
func dataJSON(data map[string]any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(data) != nil {
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// cut is s cut to at most limit bytes (at a character's start), with a
// marker saying how many were cut.
func cut(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	n := limit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + fmt.Sprintf("… (%d bytes more)", len(s)-n)
}

// add keeps e in time order (after those of its time: entries come
// about in order, so it moves back a few at most), letting the oldest
// entries go while there are more than TimelineMax or they cost more than
// TimelineBytes, and sends it to the live pages.
func (h *hub) add(e Entry) {
	h.mu.Lock()
	h.seq++
	e.Seq = h.seq
	if e.Hook != "" {
		e.Of = h.eventOf(e)
	}
	h.keep(e)
	h.persist(e)
	h.mu.Unlock()
	h.send(message{event: "entry", data: mustJSON(e)})
}

// keep puts e in the timeline in time order and lets the oldest go past
// the bounds. Its caller holds h.mu.
func (h *hub) keep(e Entry) {
	h.entries = append(h.entries, e)
	i := len(h.entries) - 1
	for ; i > 0 && h.entries[i-1].Time.After(e.Time); i-- {
		h.entries[i] = h.entries[i-1]
	}
	h.entries[i] = e
	h.bytes += e.size()
	for len(h.entries) > TimelineMax || h.bytes > TimelineBytes && len(h.entries) > 1 {
		h.bytes -= h.entries[0].size()
		h.entries[0] = Entry{} // its strings are not kept by the array
		h.entries = h.entries[1:]
	}
}

// persist appends e to the timeline's file, if it has one; a failure is
// said once and the timeline goes on in memory only. Its caller holds
// h.mu.
func (h *hub) persist(e Entry) {
	if h.file == nil {
		return
	}
	if err := h.file.append(e, h.entries); err != nil {
		h.logf("%v (the timeline is no longer kept across runs of up)", err)
		h.file.close()
		h.file = nil
	}
}

// restore reads the timeline of earlier runs from the file at path, keeps
// it within the bounds and appends to the file from now on.
func (h *hub) restore(path string) error {
	old, err := readTimeline(path)
	if err != nil {
		return err
	}
	for _, e := range old {
		h.keep(e)
		h.seq = max(h.seq, e.Seq)
	}
	t := &timelineFile{path: path}
	if err := t.rewrite(h.entries); err != nil {
		return err
	}
	h.file = t
	return nil
}

// eventOf is the Seq of the entry of run's event (its name, agent and
// time), 0 when none is kept. Its caller holds h.mu.
func (h *hub) eventOf(run Entry) uint64 {
	for _, e := range slices.Backward(h.entries) {
		if e.Hook == "" && e.Event == run.Event && e.Agent == run.Agent && e.Time.Equal(run.at) {
			return e.Seq
		}
	}
	return 0
}

// timeline returns the entries kept, oldest first.
func (h *hub) timeline() []Entry {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.entries)
}

func (h *hub) send(m message) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		select {
		case s.c <- m:
		default:
			h.dropped.Add(1)
			s.lost.Store(true)
		}
	}
}

// listening reports whether a live page is open.
func (h *hub) listening() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs) > 0
}

func (h *hub) subscribe() *sub {
	s := &sub{c: make(chan message, liveQueue)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	return s
}

func (h *hub) unsubscribe(s *sub) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// serveLive is the server-sent events of every change (GET /live),
// bounded per client (MaxLivePerClient).
func (s *Server) serveLive(w http.ResponseWriter, r *http.Request) {
	release, ok := s.acquireLive(r)
	if !ok {
		http.Error(w, fmt.Sprintf("dashboard: too many live connections from this client (at most %d)", s.opts.MaxLive), http.StatusTooManyRequests)
		return
	}
	defer release()
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "dashboard: streaming unsupported", http.StatusInternalServerError)
		return
	}
	sb := s.live.subscribe()
	defer s.live.unsubscribe(sb)
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprintf(w, "event: hello\ndata: %s\n\n", mustJSON(map[string]string{"instance": s.instance}))
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case m := <-sb.c:
			if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", m.event, m.data); err != nil {
				return
			}
			if sb.lost.Swap(false) {
				fmt.Fprint(w, "event: reload\ndata: {}\n\n")
			}
			fl.Flush()
		}
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(`null`)
	}
	return b
}

// serveTaskLive streams a task's log as it grows (GET
// /agents/NAME/tasks/ID/live): its items as server-sent events "item",
// bounded per client as the other live connections.
func (s *Server) serveTaskLive(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseUint(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "dashboard: a task id is a number", http.StatusBadRequest)
		return
	}
	path, err := s.src.TaskLogPath(r.PathValue("name"), id)
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return
	}
	fl, release, ok := s.openStream(w, r)
	if !ok {
		return
	}
	defer release()
	streamLog(r.Context(), w, fl, path)
}

// streamLog sends a task log's items as server-sent events (item), from
// its start, following it until ctx ends.
func streamLog(ctx context.Context, w http.ResponseWriter, fl http.Flusher, path string) {
	var lr LogReader
	_ = tasklog.Follow(ctx, path, 0, func(line []byte) {
		for _, it := range lr.Line(line) {
			fmt.Fprintf(w, "event: item\ndata: %s\n\n", mustJSON(it))
		}
		fl.Flush()
	})
}

// openStream starts a file's live stream (server-sent events) for r,
// counted against its client's bound (MaxLivePerClient); when it
// cannot, it answers why and ok is false. release ends the count.
func (s *Server) openStream(w http.ResponseWriter, r *http.Request) (fl http.Flusher, release func(), ok bool) {
	release, ok = s.acquireLive(r)
	if !ok {
		http.Error(w, fmt.Sprintf("dashboard: too many live connections from this client (at most %d)", s.opts.MaxLive), http.StatusTooManyRequests)
		return nil, nil, false
	}
	fl, ok = w.(http.Flusher)
	if !ok {
		release()
		http.Error(w, "dashboard: streaming unsupported", http.StatusInternalServerError)
		return nil, nil, false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, ": live\n\n")
	fl.Flush()
	return fl, release, true
}
