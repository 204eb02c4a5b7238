package webhook

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/testutil"
)

// rawDelivery opens a connection to addr, sends a POST to /webhooks/ci
// with the headers hdr (lines, each ending "\r\n"), body's length
// declared, and the first part bytes of body. It returns the status of
// the answer as it comes (0 if the connection failed) and a function
// that sends the rest of the body.
func rawDelivery(t *testing.T, addr, hdr string, body []byte, part int) (<-chan int, func()) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /webhooks/ci HTTP/1.1\r\nHost: hooks\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n", len(body), hdr)
	_, _ = c.Write(body[:part])
	code := make(chan int, 1)
	go func() {
		defer c.Close()
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			code <- 0
			return
		}
		res.Body.Close()
		code <- res.StatusCode
	}()
	return code, func() { _, _ = c.Write(body[part:]) }
}

// await is the status from code, failing the test if none comes within a
// generous deadline.
func await(t *testing.T, what string, code <-chan int) int {
	t.Helper()
	select {
	case c := <-code:
		return c
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no answer", what)
		return 0
	}
}

// TestBoundedReading: a flood of wrongly signed big deliveries sent
// slowly holds at most MaxReading bodies at once (the others are
// answered 503 before their bodies are read) on at most MaxConns
// connections (the next wait to be accepted); an unsigned delivery and
// one declaring a body over the bound are refused before their bodies
// arrive; a signed delivery still gets through afterwards. Before, every
// body was read whole before its signature was checked, on as many
// connections as came. (issue #30 item 9)
func TestBoundedReading(t *testing.T) {
	const maxReading, maxConns, n = 2, 6, 10
	var mu sync.Mutex
	peakRead, peakConn := 0, 0
	held := make(chan struct{}, n)
	published := make(chan Delivery, 1)
	h := New([]Endpoint{generic()}, Options{MaxReading: maxReading, MaxConns: maxConns, MaxBody: 64 << 10,
		ReadTimeout: time.Minute, Publish: func(d Delivery) { published <- d }})
	h.onRead = func(k int) {
		mu.Lock()
		peakRead = max(peakRead, k)
		mu.Unlock()
		held <- struct{}{}
	}
	h.onConn = func(k int) {
		mu.Lock()
		peakConn = max(peakConn, k)
		mu.Unlock()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, h) }()
	addr := ln.Addr().String()

	body := []byte(`{"x": "` + strings.Repeat("a", 60<<10) + `"}`)
	wrong := "X-Ci-Signature: " + testutil.Sign([]byte("guess"), body) + "\r\n"
	codes := make(chan int, n)
	var rests []func()
	for range n {
		code, rest := rawDelivery(t, addr, wrong, body, 1<<10)
		rests = append(rests, rest)
		go func() { codes <- <-code }()
	}
	refused, reading := 0, 0
	for refused < n-maxReading || reading < maxReading {
		select {
		case c := <-codes:
			if c != http.StatusServiceUnavailable {
				t.Fatalf("a delivery past the bound: %d, want 503", c)
			}
			refused++
		case <-held:
			reading++
		case <-time.After(30 * time.Second):
			t.Fatalf("%d refused, %d reading", refused, reading)
		}
	}
	for _, rest := range rests {
		rest()
	}
	for range maxReading {
		if c := await(t, "a wrongly signed delivery", codes); c != http.StatusUnauthorized {
			t.Errorf("a wrongly signed delivery: %d, want 401", c)
		}
	}
	mu.Lock()
	if peakRead > maxReading || peakConn > maxConns {
		t.Errorf("at once: %d bodies read (bound %d), %d connections (bound %d)", peakRead, maxReading, peakConn, maxConns)
	}
	mu.Unlock()

	code, _ := rawDelivery(t, addr, "", body, 1<<10)
	if c := await(t, "unsigned", code); c != http.StatusUnauthorized {
		t.Errorf("unsigned, its body not sent whole: %d, want 401 at once", c)
	}
	big := bytes.Repeat([]byte("a"), 1<<20)
	code, _ = rawDelivery(t, addr, "X-Ci-Signature: "+testutil.Sign([]byte(secret), big)+"\r\n", big, 1<<10)
	if c := await(t, "declared too big", code); c != http.StatusRequestEntityTooLarge {
		t.Errorf("a body declared over the bound, not sent whole: %d, want 413 at once", c)
	}
	signed := []byte(`{"ok": true}`)
	code, _ = rawDelivery(t, addr, "X-Ci-Signature: "+testutil.Sign([]byte(secret), signed)+"\r\n", signed, len(signed))
	if c := await(t, "signed", code); c != http.StatusAccepted {
		t.Errorf("a signed delivery after the flood: %d, want 202", c)
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if d := <-published; string(d.Payload) != string(signed) {
		t.Errorf("published %s", d.Payload)
	}
}
