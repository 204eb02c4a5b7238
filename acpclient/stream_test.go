package acpclient

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAnswerID: the answers the SDK writes are recognised with their id
// in the spelling admission used (a string id re-encoded with its HTML
// escapes, a number), the client's own requests are not answers.
// (issue #20 item 14)
func TestAnswerID(t *testing.T) {
	for _, tc := range []struct {
		line, key string
		ok        bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":"x"}}`, idKey([]byte("7")), true},
		{`{"jsonrpc":"2.0","id":"a\u003cb","error":{"code":-32602,"message":"no"}}`, idKey([]byte(`"a<b"`)), true},
		{`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}`, "", false},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, "", false},
	} {
		key, ok := answerID([]byte(tc.line + "\n"))
		if ok != tc.ok || key != tc.key {
			t.Errorf("answerID(%s) = %q %v, want %q %v", tc.line, key, ok, tc.key, tc.ok)
		}
	}
}

// TestPendingRequestsReleased: a request's place among the pending ones
// ends with its answer: many more requests than MaxPendingRequests, one
// after another, are all served. (The place is given back just after the
// answer is written, so the count is not checked at the end: the agent
// may read the last answer first.) (issue #20 item 14)
func TestPendingRequestsReleased(t *testing.T) {
	proj := t.TempDir()
	file := filepath.Join(proj, "f.txt")
	if err := os.WriteFile(file, []byte("ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, rec := startTestAgent(t, Options{ClientCwd: proj})
	n := MaxPendingRequests + 50
	for i := 0; i < n; i++ {
		prompt(t, c, "read "+file)
		<-rec.lines // the recorder's channel holds 100 lines
	}
	if got := strings.Count(rec.String(), "read: ok\n"); got != n {
		t.Fatalf("%d of %d reads served: %s", got, n, tailOfString(rec.String(), 300))
	}
}

func tailOfString(s string, n int) string {
	return s[max(0, len(s)-n):] + " (" + strconv.Itoa(len(s)) + " bytes)"
}
