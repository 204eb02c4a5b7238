package dashboard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// Bounds of what a client may send or hold (docs/dashboard.md).
const (
	// MaxBody bounds a request's body (a prompt, a form).
	MaxBody = 256 << 10
	// MaxLivePerClient bounds the live (SSE) connections of one client
	// address.
	MaxLivePerClient = 8
	// CookieName is the session cookie the token is exchanged for, with
	// "-PORT" added: cookies ignore ports, and two workspaces' dashboards
	// on one host must not overwrite each other's.
	CookieName = "actctl_ui"
)

// Options configure a Server.
type Options struct {
	// Token is the secret of this run of up (NewToken); required.
	Token string
	// Addr is the listener's address (host:port) as served; its port is
	// the one the Host header must name.
	Addr string
	// Host, when set, is one more host name the Host header may name
	// (a non-loopback --ui); loopback names are always accepted.
	Host string
	// MaxLive overrides MaxLivePerClient (tests).
	MaxLive int
	// Timeline, when set, is the file that keeps the events page's
	// timeline across runs of up (timeline.go); it must lie where only
	// this user writes (up gives one in its actctl home).
	Timeline string
	// Logf says what went wrong with the Timeline file (nil: nothing).
	Logf func(format string, args ...any)
}

// Server is the dashboard's HTTP handler.
type Server struct {
	src    Source
	opts   Options
	port   string
	cookie string // CookieName-port
	mux    *http.ServeMux
	live   *hub
	// instance names this Server (a run of up) to its pages; it is not
	// the token.
	instance string

	mu      sync.Mutex
	clients map[string]int // live connections per client address
}

// NewToken returns a random token (256 bits, hex).
func NewToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// New returns the dashboard of src.
func New(src Source, opts Options) (*Server, error) {
	if opts.Token == "" {
		return nil, fmt.Errorf("dashboard: no token")
	}
	_, port, err := net.SplitHostPort(opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("dashboard: address %q: %w", opts.Addr, err)
	}
	if opts.MaxLive <= 0 {
		opts.MaxLive = MaxLivePerClient
	}
	if opts.Logf == nil {
		opts.Logf = func(string, ...any) {}
	}
	s := &Server{src: src, opts: opts, port: port, cookie: CookieName + "-" + port, clients: map[string]int{}, live: newHub(src), instance: NewToken()[:16]}
	s.live.logf = opts.Logf
	if opts.Timeline != "" {
		if err := s.live.restore(opts.Timeline); err != nil {
			opts.Logf("%v (the timeline starts empty and is kept in memory only)", err)
		}
	}
	s.routes()
	return s, nil
}

// Close closes the file the timeline is kept in, if any; the Server
// serves on without it.
func (s *Server) Close() error {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	err := s.live.file.close()
	s.live.file = nil
	return err
}

// ServeHTTP applies the security rules, then routes the request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	// same-origin, not no-referrer: under no-referrer a browser sends a
	// plain form's POST with "Origin: null", which the Origin check
	// refuses, so the pages would need script to change anything.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cache-Control", "no-store")
	if !s.hostAllowed(r.Host) {
		http.Error(w, "dashboard: Host "+r.Host+" is not this dashboard's (a loopback name and its port)", http.StatusMisdirectedRequest)
		return
	}
	if tok := r.URL.Query().Get("token"); tok != "" {
		s.exchange(w, r, tok)
		return
	}
	if !s.authorized(r) {
		http.Error(w, "dashboard: unauthorized: open the URL actctl up printed (actctl dashboard)", http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		if r.Method != http.MethodPost {
			http.Error(w, "dashboard: method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if !s.sameOrigin(r) {
			http.Error(w, originRefusal(r), http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	}
	s.mux.ServeHTTP(w, r)
}

// hostAllowed says whether host (the Host header) names this server: a
// loopback name or the configured host, with its port (DNS rebinding).
func (s *Server) hostAllowed(host string) bool {
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		// A browser leaves out port 80.
		name, port = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"), "80"
	}
	if port != s.port {
		return false
	}
	switch strings.ToLower(name) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return s.opts.Host != "" && strings.EqualFold(name, s.opts.Host)
}

// sameOrigin says whether a state-changing request comes from a page of
// this dashboard: its Origin is http://HOST with the request's Host.
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return false
	}
	u, err := url.Parse(o)
	return err == nil && u.Scheme == "http" && u.Host == r.Host && u.Path == ""
}

// originRefusal says why a POST's origin was refused, and where
// changes come from when it had none (a script, curl).
func originRefusal(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		return "dashboard: cross-origin request refused (Origin " + o + ")"
	}
	return "dashboard: cross-origin request refused: no Origin header (changes are POSTs from the dashboard's own pages, http://" + r.Host + ")"
}

func (s *Server) validToken(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.Token)) == 1
}

func (s *Server) authorized(r *http.Request) bool {
	c, err := r.Cookie(s.cookie)
	return err == nil && s.validToken(c.Value)
}

// exchange turns the token of the URL into the session cookie and
// redirects to the same page without it, so that it leaves the address
// bar and the history.
func (s *Server) exchange(w http.ResponseWriter, r *http.Request, tok string) {
	if !s.validToken(tok) {
		http.Error(w, "dashboard: unauthorized: wrong token (each actctl up makes a new one: actctl dashboard)", http.StatusUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: s.cookie, Value: s.opts.Token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode})
	q := r.URL.Query()
	q.Del("token")
	u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

// acquireLive counts one more live connection of r's client, false
// when it has MaxLive already.
func (s *Server) acquireLive(r *http.Request) (release func(), ok bool) {
	client, _, _ := net.SplitHostPort(r.RemoteAddr)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.clients[client] >= s.opts.MaxLive {
		return nil, false
	}
	s.clients[client]++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.clients[client]--; s.clients[client] == 0 {
			delete(s.clients, client)
		}
	}, true
}
