package webhook

import (
	"net/http"
	"strings"
	"testing"
)

// TestFilteredNoEventHeader: a signed delivery without the event header,
// to a webhook that lists its events, is answered "ignored" naming the
// missing header and the events taken (it said `event ""`), and nothing
// is queued.
func TestFilteredNoEventHeader(t *testing.T) {
	h := New([]Endpoint{github("push", "issues")}, Options{})
	req := readFixture(t, "push").request("gh")
	req.Header.Del(GitHubEventHeader)
	code, body := serve(h, req)
	want := "ignored: no X-GitHub-Event header: webhook gh takes the events push, issues"
	if code != http.StatusOK || !strings.Contains(body, want) {
		t.Errorf("%d %q, want %q", code, body, want)
	}
	if ds := queued(h); len(ds) != 0 {
		t.Errorf("queued %v", ds)
	}
}
