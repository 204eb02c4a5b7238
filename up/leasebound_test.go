package up

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/control"
)

// TestLeaseOversizedLineRefused: a lease client's message over
// acpclient.MaxMessage is never held whole nor passed on: it is answered
// with a JSON-RPC error for its id, and the client's next request is
// served (issue #26 item 9: every line reader bounded).
func TestLeaseOversizedLineRefused(t *testing.T) {
	h := newHarness(t, nil)
	h.m.Sync([]Spec{service(t, "api")})
	h.wait("process:start", "api")
	serve, err := h.m.Upgrade(context.Background(), control.Request{Op: control.OpLease, Agent: "api"})
	if err != nil {
		t.Fatal(err)
	}
	ours, theirs := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = serve(context.Background(), theirs, theirs)
		theirs.Close()
	}()
	t.Cleanup(func() { ours.Close(); <-done })
	big := `{"jsonrpc":"2.0","id":5,"method":"_x/big","params":"` + strings.Repeat("x", acpclient.MaxMessage) + `"}` + "\n"
	go func() {
		_, _ = ours.Write([]byte(big))
		_, _ = ours.Write([]byte(`{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}` + "\n"))
	}()
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	br := bufio.NewReader(ours)
	var answers []answer
	for len(answers) < 2 {
		line, err := br.ReadBytes('\n')
		if err != nil {
			t.Fatalf("after %d answers: %v", len(answers), err)
		}
		var a answer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("answer %.200q: %v", line, err)
		}
		answers = append(answers, a)
	}
	refused, served := answers[0], answers[1]
	want := "message of " + strconv.Itoa(len(big)) + " bytes refused: the limit is " + strconv.Itoa(acpclient.MaxMessage) + " bytes"
	if string(refused.ID) != "5" || refused.Error == nil || refused.Error.Code != -32600 || refused.Error.Message != want {
		t.Errorf("answer to the oversized message: id %s, error %+v; want -32600 %q", refused.ID, refused.Error, want)
	}
	if string(served.ID) != "6" || served.Error != nil || len(served.Result) == 0 {
		t.Errorf("answer to initialize after it: id %s, result %s, error %+v", served.ID, served.Result, served.Error)
	}
	h.waitLog("lease client: a message of " + strconv.Itoa(len(big)) + " bytes refused")
}
