package dashboard

import (
	"bufio"
	"encoding/json"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// TestControlsFollowState: a running agent's Start is disabled and its
// prompt box shown; a stopped one's Stop is disabled and its prompt box
// offers Start (a button), not a command line. (issue #35 item 12)
func TestControlsFollowState(t *testing.T) {
	s := newTestServer(t, newFake(testAgents()...))
	button := func(page, action string) string {
		m := regexp.MustCompile(`action="/agents/\w+/` + action + `" class="inline ctl"><button([^>]*)>`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no %s button:\n%s", action, page)
		}
		return m[1]
	}
	bot := serve(s, request("GET", "/agents/bot", "")).Body.String()
	if !strings.Contains(button(bot, "start"), "disabled") || strings.Contains(button(bot, "stop"), "disabled") ||
		!strings.Contains(bot, `<div id="prompt-down" hidden>`) || !strings.Contains(bot, `id="prompt-form">`) {
		t.Errorf("running bot: start %q stop %q", button(bot, "start"), button(bot, "stop"))
	}
	svc := serve(s, request("GET", "/agents/svc", "")).Body.String()
	if strings.Contains(button(svc, "start"), "disabled") || !strings.Contains(button(svc, "stop"), "disabled") ||
		!strings.Contains(svc, `<div id="prompt-down">`) || !strings.Contains(svc, `<button data-when="down">Start svc</button>`) ||
		!strings.Contains(svc, `id="prompt-form" hidden>`) {
		t.Errorf("stopped svc: start %q stop %q\n%s", button(svc, "start"), button(svc, "stop"), svc)
	}
}

// TestInstance: every page, the live stream's first message and
// /api/instance name the same run of up, and another Server another, so
// a page left open across a restart of up sees it lost its up (the
// token itself is never shown). (issue #35 item 3)
func TestInstance(t *testing.T) {
	s, ts := liveServer(t, newFake(testAgents()...), 0)
	get := func(path string) *httptest.ResponseRecorder { return getLive(s, ts, path) }
	page := get("/").Body.String()
	m := regexp.MustCompile(`data-instance="([0-9a-f]{16})"`).FindStringSubmatch(page)
	if m == nil || strings.Contains(page, testToken) {
		t.Fatalf("no instance on the page:\n%s", page)
	}
	var got struct{ Instance string }
	if err := json.Unmarshal(get("/api/instance").Body.Bytes(), &got); err != nil || got.Instance != m[1] {
		t.Fatalf("/api/instance %q (%v), page %q", got.Instance, err, m[1])
	}
	res, err := openLive(t, ts)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if hello := nextEvent(t, bufio.NewScanner(res.Body), "hello"); hello != `{"instance":"`+m[1]+`"}` {
		t.Fatalf("hello %s", hello)
	}
	if other := newTestServer(t, newFake(testAgents()...)); other.instance == s.instance {
		t.Fatal("two servers share an instance")
	}
}

// getLive is a GET to s as a logged-in page of its live server ts.
func getLive(s *Server, ts *httptest.Server, path string) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", path, nil)
	r.Host = ts.Listener.Addr().String()
	r.AddCookie(liveCookie(ts))
	return serve(s, r)
}
