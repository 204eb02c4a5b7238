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

// Defaults of Options. What the listener holds is bounded by them
// (docs/runtime.md, "Webhooks"): at most DefaultMaxReading bodies of at
// most DefaultMaxBody each (16 MiB), and per connection, of at most
// DefaultMaxConns, its headers (at most maxHeaderBytes) and buffers.
const (
	DefaultMaxBody     = 1 << 20
	DefaultMaxReading  = 16
	DefaultMaxConns    = 128
	DefaultReadTimeout = 10 * time.Second
	DefaultQueue       = 256
	DefaultReplayTTL   = 24 * time.Hour
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
	// MaxReading bounds the deliveries whose bodies are read and checked
	// at once (default DefaultMaxReading): another is answered 503 with
	// Retry-After before its body is read.
	MaxReading int
	// MaxConns bounds the connections Serve serves at once (default
	// DefaultMaxConns): more wait to be accepted.
	MaxConns int
	// ReadTimeout is how long Serve gives a request to arrive, body
	// included (default DefaultReadTimeout).
	ReadTimeout time.Duration
	// Queue bounds the deliveries accepted and not yet published
	// (default DefaultQueue): more are answered 503 with Retry-After.
	Queue int
	// ReplayTTL is how long a delivery id is remembered (default a day).
	ReplayTTL time.Duration
}

// Handler serves POST /webhooks/NAME. Its zero value is not usable: New.
type Handler struct {
	opts    Options
	queue   chan Delivery
	reading chan struct{} // a slot per delivery whose body is read
	// onRead and onConn, if set (tests), are called with the number of
	// bodies being read once one more is, and of connections served once
	// one more is.
	onRead, onConn func(n int)

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
	if opts.MaxReading <= 0 {
		opts.MaxReading = DefaultMaxReading
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = DefaultMaxConns
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	if opts.ReplayTTL <= 0 {
		opts.ReplayTTL = DefaultReplayTTL
	}
	h := &Handler{opts: opts, queue: make(chan Delivery, opts.Queue), reading: make(chan struct{}, opts.MaxReading), seen: map[string]time.Time{}}
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
// ignored event type or a replay, 503 when the queue is full or
// MaxReading bodies are being read, else 202 once the delivery is
// queued. A request refused before its body was read (a declared length
// over the bound, no signature or one of another shape, no slot to read
// it in) is answered at once and its connection closed: its body is
// never read, so it costs no memory.
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
	sig, code, msg := h.admit(e, r)
	if code != 0 {
		if code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		refuse(w, code, msg)
		return
	}
	defer func() { <-h.reading }()
	body, err := readBody(r.Body, r.ContentLength, h.opts.MaxBody)
	if errors.Is(err, errTooBig) {
		refuse(w, http.StatusRequestEntityTooLarge, h.tooBig())
		return
	}
	if err != nil {
		refuse(w, http.StatusBadRequest, "400 reading the body: "+err.Error())
		return
	}
	code, msg = h.take(e, r.Header, sig, body)
	if code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	answer(w, code, msg)
}

// admit decides, before anything of r's body is read, whether it is
// read: its signature, and a slot to read it in taken (the caller gives
// it back); else the refusal's status and message.
func (h *Handler) admit(e Endpoint, r *http.Request) (sig []byte, code int, msg string) {
	if r.ContentLength > h.opts.MaxBody {
		return nil, http.StatusRequestEntityTooLarge, h.tooBig()
	}
	sig, err := e.signature(r.Header)
	if err != nil {
		return nil, http.StatusUnauthorized, unsigned(e, err)
	}
	select {
	case h.reading <- struct{}{}:
	default:
		return nil, http.StatusServiceUnavailable, fmt.Sprintf("503 %d deliveries are being read; retry later", h.opts.MaxReading)
	}
	if h.onRead != nil {
		h.onRead(len(h.reading))
	}
	return sig, 0, ""
}

func (h *Handler) tooBig() string { return fmt.Sprintf("413 body over %d bytes", h.opts.MaxBody) }

func unsigned(e Endpoint, err error) string {
	return fmt.Sprintf("401 %v (%s, HMAC-SHA256 of the body)", err, e.Header)
}

// answer writes the status and its message.
func answer(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}

// refuse answers a request whose body is not read (whole) and closes its
// connection, so that the server does not read the rest either.
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Connection", "close")
	answer(w, code, msg)
}

var errTooBig = errors.New("body over the bound")

// readBody reads a body of at most limit bytes (more is errTooBig):
// one of a declared length (declared >= 0, the server ends it there)
// into one buffer of that size, another into one grown as it arrives.
func readBody(r io.Reader, declared, limit int64) ([]byte, error) {
	if declared >= 0 {
		buf := make([]byte, declared)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		return buf, nil
	}
	buf, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err == nil && int64(len(buf)) > limit {
		return nil, errTooBig
	}
	return buf, err
}

// take checks and queues one body signed with sig; it returns the
// answer.
func (h *Handler) take(e Endpoint, hdr http.Header, sig, body []byte) (int, string) {
	if err := e.verify(sig, body); err != nil {
		return http.StatusUnauthorized, unsigned(e, err)
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
