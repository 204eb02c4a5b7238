package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
	"github.com/actctl/actctl/internal/testutil"
	"github.com/actctl/actctl/model"
)

const secret = "It's a Secret to Everybody"

// fixture is a recorded GitHub delivery: its headers and its payload
// (the body sent), signed in the test with secret.
type fixture struct {
	Headers map[string]string `json:"headers"`
	Payload json.RawMessage   `json:"payload"`
}

func readFixture(t *testing.T, name string) fixture {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var f fixture
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// request is a signed POST of f to webhook name.
func (f fixture) request(name string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, Prefix+name, bytes.NewReader(f.Payload))
	for k, v := range f.Headers {
		r.Header.Set(k, v)
	}
	r.Header.Set(GitHubSignatureHeader, testutil.Sign([]byte(secret), f.Payload))
	return r
}

func github(events ...string) Endpoint {
	return Endpoint{Name: "gh", Secret: []byte(secret), Signature: model.SignatureGitHub, Header: GitHubSignatureHeader, Events: events}
}

func generic() Endpoint {
	return Endpoint{Name: "ci", Secret: []byte(secret), Signature: model.SignatureHMAC, Header: "X-Ci-Signature"}
}

// serve runs r through h: the status and the body.
func serve(h *Handler, r *http.Request) (int, string) {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

// queued takes what h queued, without a worker.
func queued(h *Handler) []Delivery {
	var out []Delivery
	for {
		select {
		case d := <-h.queue:
			out = append(out, d)
		default:
			return out
		}
	}
}

// TestGitHubDeliveries: real-shaped deliveries of issues, pull_request
// and push are accepted and queued with their event, id, headers and
// payload.
func TestGitHubDeliveries(t *testing.T) {
	h := New([]Endpoint{github()}, Options{})
	for _, tc := range []struct{ fixture, path, want string }{
		{"issues", "issue.title", "Found a bug"},
		{"pull_request", "pull_request.title", "Update the README with new information."},
		{"push", "head_commit.message", "Update README.md"},
	} {
		f := readFixture(t, tc.fixture)
		if code, body := serve(h, f.request("gh")); code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", tc.fixture, code, body)
		}
		ds := queued(h)
		if len(ds) != 1 {
			t.Fatalf("%s: %d deliveries queued", tc.fixture, len(ds))
		}
		d := ds[0]
		if d.Webhook != "gh" || d.Event != tc.fixture || d.Delivery != f.Headers["X-GitHub-Delivery"] {
			t.Errorf("%s: delivery %+v", tc.fixture, d)
		}
		if d.Headers["X-Github-Hook-Id"] != "292430182" || d.Headers["User-Agent"] == "" || d.Headers[GitHubSignatureHeader] != "" {
			t.Errorf("%s: headers %v", tc.fixture, d.Headers)
		}
		var v any = d.Data()["payload"]
		for _, k := range strings.Split(tc.path, ".") {
			v = v.(map[string]any)[k]
		}
		if v != tc.want {
			t.Errorf("%s: payload %s = %v, want %q", tc.fixture, tc.path, v, tc.want)
		}
	}
}

// TestRefused: every bad request gets its status and message, and
// nothing is queued.
func TestRefused(t *testing.T) {
	f := readFixture(t, "issues")
	h := New([]Endpoint{github("issues", "push"), generic()}, Options{MaxBody: 4096})
	with := func(mod func(r *http.Request)) *http.Request {
		r := f.request("gh")
		mod(r)
		return r
	}
	for _, tc := range []struct {
		name string
		req  *http.Request
		code int
		want string
	}{
		{"unsigned", with(func(r *http.Request) { r.Header.Del(GitHubSignatureHeader) }), 401, "401 no signature (X-Hub-Signature-256"},
		{"wrong secret", with(func(r *http.Request) { r.Header.Set(GitHubSignatureHeader, testutil.Sign([]byte("guess"), f.Payload)) }), 401, "401 the signature does not match the body"},
		{"bare hex for github", with(func(r *http.Request) {
			r.Header.Set(GitHubSignatureHeader, strings.TrimPrefix(testutil.Sign([]byte(secret), f.Payload), "sha256="))
		}), 401, "does not match"},
		{"not hex", with(func(r *http.Request) { r.Header.Set(GitHubSignatureHeader, "sha256=zz") }), 401, "does not match"},
		{"body changed", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/webhooks/gh", strings.NewReader(string(f.Payload)+" "))
			r.Header.Set(GitHubSignatureHeader, testutil.Sign([]byte(secret), f.Payload))
			r.Header.Set(GitHubEventHeader, "issues")
			return r
		}(), 401, "does not match"},
		{"oversized", func() *http.Request {
			big := []byte(`{"x": "` + strings.Repeat("a", 5000) + `"}`)
			r := httptest.NewRequest(http.MethodPost, "/webhooks/gh", bytes.NewReader(big))
			r.Header.Set(GitHubSignatureHeader, testutil.Sign([]byte(secret), big))
			return r
		}(), 413, "413 body over 4096 bytes"},
		{"not JSON", func() *http.Request {
			body := []byte("payload=%7B%7D")
			r := httptest.NewRequest(http.MethodPost, "/webhooks/gh", bytes.NewReader(body))
			r.Header.Set(GitHubSignatureHeader, testutil.Sign([]byte(secret), body))
			r.Header.Set(GitHubEventHeader, "issues")
			return r
		}(), 400, "400 the payload must be a JSON object"},
		{"GET", httptest.NewRequest(http.MethodGet, "/webhooks/gh", nil), 405, "POST only"},
		{"unknown webhook", httptest.NewRequest(http.MethodPost, "/webhooks/gl", bytes.NewReader(f.Payload)), 404, "404"},
		{"below the name", httptest.NewRequest(http.MethodPost, "/webhooks/gh/x", bytes.NewReader(f.Payload)), 404, "404"},
		{"a query", httptest.NewRequest(http.MethodPost, "/webhooks/gh?x=1", bytes.NewReader(f.Payload)), 404, "404"},
		{"generic in github's header", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/webhooks/ci", bytes.NewReader(f.Payload))
			r.Header.Set(GitHubSignatureHeader, testutil.Sign([]byte(secret), f.Payload))
			return r
		}(), 401, "401 no signature (X-Ci-Signature"},
	} {
		code, body := serve(h, tc.req)
		if code != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %q, want %d %q", tc.name, code, body, tc.code, tc.want)
		}
		if ds := queued(h); len(ds) != 0 {
			t.Errorf("%s: queued %v", tc.name, ds)
		}
	}
}

// TestFiltered: an event type not in events is answered "ignored", after
// the signature is checked.
func TestFiltered(t *testing.T) {
	h := New([]Endpoint{github("push")}, Options{})
	code, body := serve(h, readFixture(t, "issues").request("gh"))
	if code != http.StatusOK || !strings.Contains(body, `ignored: event "issues" is not one of webhook gh's events`) {
		t.Errorf("%d %q", code, body)
	}
	if ds := queued(h); len(ds) != 0 {
		t.Errorf("queued %v", ds)
	}
	if code, _ := serve(h, readFixture(t, "push").request("gh")); code != http.StatusAccepted {
		t.Errorf("push: %d", code)
	}
}

// TestGeneric: hmac-sha256 in the configured header, with sha256= or
// bare hex; its delivery id and event type from X-Delivery-Id and
// X-Event-Type.
func TestGeneric(t *testing.T) {
	h := New([]Endpoint{generic()}, Options{})
	body := []byte(`{"build": {"id": 7, "status": "failed"}}`)
	for i, sig := range []string{testutil.Sign([]byte(secret), body), strings.TrimPrefix(testutil.Sign([]byte(secret), body), "sha256=")} {
		r := httptest.NewRequest(http.MethodPost, "/webhooks/ci", bytes.NewReader(body))
		r.Header.Set("X-Ci-Signature", sig)
		r.Header.Set(HMACDeliveryHeader, fmt.Sprint("d", i))
		r.Header.Set(HMACEventHeader, "build")
		if code, b := serve(h, r); code != http.StatusAccepted {
			t.Fatalf("%s: %d %s", sig, code, b)
		}
		ds := queued(h)
		if len(ds) != 1 || ds[0].Event != "build" || ds[0].Delivery != fmt.Sprint("d", i) {
			t.Errorf("%s: %+v", sig, ds)
		}
	}
}

// TestReplay: a delivery id seen within a day is answered "duplicate"
// and not queued; a day later it is taken again.
func TestReplay(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC))
	h := New([]Endpoint{github()}, Options{Clock: clk})
	f := readFixture(t, "issues")
	if code, _ := serve(h, f.request("gh")); code != http.StatusAccepted {
		t.Fatal(code)
	}
	clk.Advance(23 * time.Hour)
	code, body := serve(h, f.request("gh"))
	if code != http.StatusOK || !strings.Contains(body, "duplicate: delivery 72d3162e-cc78-11e3-81ab-4c9367dc0958 was already taken") {
		t.Errorf("replay: %d %q", code, body)
	}
	if ds := queued(h); len(ds) != 1 {
		t.Errorf("%d deliveries queued, want the first alone", len(ds))
	}
	clk.Advance(time.Hour)
	if code, _ := serve(h, f.request("gh")); code != http.StatusAccepted {
		t.Errorf("a day later: %d", code)
	}
}

// TestFlood: with the worker busy, the queue takes its bound and refuses
// the rest with 503 and Retry-After; every delivery accepted is
// published, in order, and a refused one may be sent again.
func TestFlood(t *testing.T) {
	started, release := make(chan string, 1), make(chan struct{})
	var mu sync.Mutex
	var published []string
	h := New([]Endpoint{generic()}, Options{Queue: 2, Publish: func(d Delivery) {
		select {
		case started <- d.Delivery:
		default:
		}
		<-release
		mu.Lock()
		published = append(published, d.Delivery)
		mu.Unlock()
	}})
	send := func(id string) (int, http.Header) {
		body := []byte(`{"n": "` + id + `"}`)
		r := httptest.NewRequest(http.MethodPost, "/webhooks/ci", bytes.NewReader(body))
		r.Header.Set("X-Ci-Signature", testutil.Sign([]byte(secret), body))
		r.Header.Set(HMACDeliveryHeader, id)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, w.Header()
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() { defer close(done); h.Run(stop) }()
	if code, _ := send("a"); code != http.StatusAccepted {
		t.Fatal(code)
	}
	<-started // the worker holds "a": the queue is empty
	var accepted []string
	for i := range 10 {
		id := fmt.Sprint("f", i)
		code, hdr := send(id)
		switch {
		case i < 2 && code == http.StatusAccepted:
			accepted = append(accepted, id)
		case i >= 2 && code == http.StatusServiceUnavailable && hdr.Get("Retry-After") != "":
		default:
			t.Errorf("request %d: %d %v", i, code, hdr)
		}
	}
	close(release)
	close(stop)
	<-done
	want := append([]string{"a"}, accepted...)
	if fmt.Sprint(published) != fmt.Sprint(want) {
		t.Errorf("published %v, want %v", published, want)
	}
	if code, _ := send("f5"); code != http.StatusAccepted {
		t.Errorf("a refused delivery sent again: %d", code)
	}
}

// TestServeRoutes: the listener serves nothing but POST /webhooks/NAME,
// and Serve publishes what it accepted before it returns.
func TestServeRoutes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var got []Delivery
	h := New([]Endpoint{github()}, Options{Publish: func(d Delivery) { got = append(got, d) }})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, h) }()
	base := "http://" + ln.Addr().String()
	for _, tc := range []struct {
		method, path string
		code         int
	}{{"GET", "/", 404}, {"GET", "/debug/pprof/", 404}, {"POST", "/hooks/gh", 404}, {"GET", "/webhooks/gh", 405}, {"PUT", "/webhooks/gh", 405}} {
		req, _ := http.NewRequest(tc.method, base+tc.path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != tc.code {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, res.StatusCode, tc.code)
		}
	}
	f := readFixture(t, "push")
	req, _ := http.NewRequest("POST", base+"/webhooks/gh", bytes.NewReader(f.Payload))
	req.Header = f.request("gh").Header
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("POST: %d", res.StatusCode)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Event != "push" {
		t.Errorf("published %+v", got)
	}
}

// TestEndpoints: a webhook whose secret's variable is unset is an error
// naming it.
func TestEndpoints(t *testing.T) {
	ws := map[string]model.Webhook{
		"gh": {SecretEnv: "GH_SECRET", Signature: model.SignatureGitHub},
		"ci": {SecretEnv: "CI_SECRET", Signature: model.SignatureHMAC},
	}
	env := map[string]string{"GH_SECRET": "s1", "CI_SECRET": "s2"}
	eps, err := Endpoints(ws, func(k string) string { return env[k] })
	if err != nil || len(eps) != 2 || eps[0].Header != DefaultHMACHeader || eps[1].Header != GitHubSignatureHeader || string(eps[1].Secret) != "s1" {
		t.Fatalf("%+v %v", eps, err)
	}
	delete(env, "CI_SECRET")
	eps, err = Endpoints(ws, func(k string) string { return env[k] })
	if err == nil || eps != nil || !strings.Contains(err.Error(), "webhook ci: its secret's environment variable CI_SECRET is not set (webhooks.ci.secretEnv)") {
		t.Errorf("%v %v", eps, err)
	}
}
