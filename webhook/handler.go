package webhook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// Defaults of Options.
const (
	DefaultMaxBody   = 1 << 20
	DefaultQueue     = 256
	DefaultReplayTTL = 24 * time.Hour
	// maxSeen bounds the delivery ids kept against replays, whatever
	// their age: a flood of valid deliveries does not grow memory.
	maxSeen = 1 << 16
)

// Options configure a Handler.
type Options struct {
	// Publish gets each accepted delivery, in order, from the worker
	// (Run), never from a request.
	Publish func(Delivery)
	// Clock dates the delivery ids kept against replays (default real).
	Clock clock.Clock
	// MaxBody bounds a request's body (default DefaultMaxBody): more is
	// answered 413.
	MaxBody int64
	// Queue bounds the deliveries accepted and not yet published
	// (default DefaultQueue): more are answered 503 with Retry-After.
	Queue int
	// ReplayTTL is how long a delivery id is remembered (default a day).
	ReplayTTL time.Duration
}

// Handler serves POST /webhooks/NAME. Its zero value is not usable: New.
type Handler struct {
	opts  Options
	queue chan Delivery

	mu        sync.Mutex
	endpoints map[string]Endpoint
	seen      map[string]time.Time // webhook and delivery id -> when accepted
	order     []string             // the keys of seen, oldest first
}

// New returns a handler for the endpoints.
func New(endpoints []Endpoint, opts Options) *Handler {
	if opts.Clock == nil {
		opts.Clock = clock.Real()
	}
	if opts.MaxBody <= 0 {
		opts.MaxBody = DefaultMaxBody
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	if opts.ReplayTTL <= 0 {
		opts.ReplayTTL = DefaultReplayTTL
	}
	h := &Handler{opts: opts, queue: make(chan Delivery, opts.Queue), seen: map[string]time.Time{}}
	h.Set(endpoints)
	return h
}

// Set replaces the endpoints (a config cycle); the ids kept stay.
func (h *Handler) Set(endpoints []Endpoint) {
	m := make(map[string]Endpoint, len(endpoints))
	for _, e := range endpoints {
		m[e.Name] = e
	}
	h.mu.Lock()
	h.endpoints = m
	h.mu.Unlock()
}

// Prefix is the path under which webhooks are served.
const Prefix = "/webhooks/"

// ServeHTTP answers one delivery: 404 for any other path or an unknown
// webhook, 405 for another method, 413 for a body over the bound, 401
// unsigned or wrongly signed, 400 without a JSON object, 200 for an
// ignored event type or a replay, 503 when the queue is full, else 202
// once the delivery is queued.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name, ok := strings.CutPrefix(r.URL.Path, Prefix)
	h.mu.Lock()
	e, known := h.endpoints[name]
	h.mu.Unlock()
	if !ok || !known || r.URL.RawQuery != "" {
		http.Error(w, "404 not found", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "405 method not allowed: POST only", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("413 body over %d bytes", h.opts.MaxBody), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "400 reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	code, msg := h.take(e, r.Header, body)
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}

// take checks and queues one signed body; it returns the answer.
func (h *Handler) take(e Endpoint, hdr http.Header, body []byte) (int, string) {
	if err := e.verify(hdr, body); err != nil {
		return http.StatusUnauthorized, fmt.Sprintf("401 %v (%s, HMAC-SHA256 of the body)", err, e.Header)
	}
	event, id := e.eventOf(hdr)
	if len(e.Events) > 0 && !slices.Contains(e.Events, event) {
		if event == "" {
			return http.StatusOK, fmt.Sprintf("ignored: no %s header: webhook %s takes the events %s", e.eventHeader(), e.Name, strings.Join(e.Events, ", "))
		}
		return http.StatusOK, fmt.Sprintf("ignored: event %q is not one of webhook %s's events", event, e.Name)
	}
	if !isObject(body) {
		return http.StatusBadRequest, "400 the payload must be a JSON object (Content-Type: application/json)"
	}
	d := Delivery{Webhook: e.Name, Event: event, Delivery: id, Headers: headersOf(hdr), Payload: json.RawMessage(body)}
	h.mu.Lock() // the replay check and the queueing are one step
	defer h.mu.Unlock()
	key := e.Name + "\x00" + id
	if id != "" && h.seenLocked(key) {
		return http.StatusOK, fmt.Sprintf("duplicate: delivery %s was already taken", id)
	}
	select {
	case h.queue <- d:
	default:
		return http.StatusServiceUnavailable, "503 too many deliveries waiting; retry later"
	}
	if id != "" {
		h.rememberLocked(key)
	}
	return http.StatusAccepted, "queued"
}

// isObject reports whether body is one JSON object.
func isObject(body []byte) bool {
	b := bytes.TrimSpace(body)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

func headersOf(h http.Header) map[string]string {
	out := map[string]string{}
	for _, k := range kept {
		if v := h.Get(k); v != "" {
			out[http.CanonicalHeaderKey(k)] = v
		}
	}
	return out
}

// seenLocked reports whether key was accepted within the replay TTL,
// forgetting those older first.
func (h *Handler) seenLocked(key string) bool {
	now := h.opts.Clock.Now()
	for len(h.order) > 0 && now.Sub(h.seen[h.order[0]]) >= h.opts.ReplayTTL {
		delete(h.seen, h.order[0])
		h.order = h.order[1:]
	}
	_, ok := h.seen[key]
	return ok
}

func (h *Handler) rememberLocked(key string) {
	if len(h.order) >= maxSeen {
		delete(h.seen, h.order[0])
		h.order = h.order[1:]
	}
	h.seen[key] = h.opts.Clock.Now()
	h.order = append(h.order, key)
}

// Run hands queued deliveries to Options.Publish until stop is closed,
// then those still queued, and returns.
func (h *Handler) Run(stop <-chan struct{}) {
	for {
		select {
		case d := <-h.queue:
			h.opts.Publish(d)
		case <-stop:
			for {
				select {
				case d := <-h.queue:
					h.opts.Publish(d)
				default:
					return
				}
			}
		}
	}
}
