package dashboard

import (
	"net/http"
	"strings"
	"testing"
)

// TestOriginMissingMessage: a POST without an Origin header (curl) is
// refused with a message that says the header is missing and where
// changes come from; it printed "(Origin )".
func TestOriginMissingMessage(t *testing.T) {
	s := newTestServer(t, newFake(testAgents()...))
	r := request("POST", "/agents/bot/restart", "")
	r.Header.Del("Origin")
	w := serve(s, r)
	want := "dashboard: cross-origin request refused: no Origin header (changes are POSTs from the dashboard's own pages, http://" + testAddr + ")"
	if w.Code != http.StatusForbidden || strings.TrimSpace(w.Body.String()) != want {
		t.Errorf("%d %q, want %q", w.Code, w.Body.String(), want)
	}
}
