package acpclient

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestAnswerID: the answers written are recognised, and end the
// wait of the request admitted under the id in the spelling the agent
// used (a string id re-encoded with its HTML escapes, a number); the
// client's own requests are not answers. (issue #20 item 14)
func TestAnswerID(t *testing.T) {
	for _, tc := range []struct {
		line, admitted string
		ok             bool
	}{
		{`{"jsonrpc":"2.0","id":7,"result":{"content":"x"}}`, `7`, true},
		{`{"jsonrpc":"2.0","id":"a\u003cb","error":{"code":-32602,"message":"no"}}`, `"a<b"`, true},
		{`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{}}`, "", false},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, "", false},
	} {
		id, ok := answerID([]byte(tc.line + "\n"))
		if ok != tc.ok {
			t.Errorf("answerID(%s) = %s %v, want %v", tc.line, id, ok, tc.ok)
		}
		if !ok {
			continue
		}
		var p pending
		p.admit([]byte(tc.admitted), "fs/read_text_file", 10, func() {})
		p.done(id)
		if p.reqs.Len() != 0 || p.bytes != 0 {
			t.Errorf("the answer %s did not end the wait of request %s", tc.line, tc.admitted)
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

// TestInboundKeepsNoBigBuffer: the reader of an idle agent holds no more
// than a few buffers' worth once a long line (a tool call's diff) has
// been read: `up` holds one reader per agent.
func TestInboundKeepsNoBigBuffer(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"_x","params":"` + strings.Repeat("x", 200<<10) + `"}` + "\n"
	in := newInbound(&Client{}, strings.NewReader(long+"{}\n"))
	if line, err := in.next(); err != nil || len(line) != len(long)-1 {
		t.Fatalf("long line: %d bytes, %v", len(line), err)
	}
	if line, err := in.next(); err != nil || string(line) != "{}" {
		t.Fatalf("next line %q, %v", line, err)
	}
	if c := cap(in.line); c > maxKeptLine {
		t.Fatalf("the reader keeps %d KiB after a long line (want <= %d KiB)", c>>10, maxKeptLine>>10)
	}
}
