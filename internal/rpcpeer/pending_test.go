package rpcpeer

import (
	"fmt"
	"testing"
)

// TestPending: a request is found by any spelling of its id a peer may
// answer with; several under one id are answered oldest first; null and
// missing ids are not tracked; Drain gives every request in arrival
// order.
func TestPending(t *testing.T) {
	var p Pending[int]
	for i, id := range []string{`"a<b"`, `1`, `1`, `"x"`, `null`, ``, `-0`} {
		p.Add([]byte(id), fmt.Sprintf("m%d", i), i)
	}
	if p.Len() != 5 {
		t.Fatalf("Len = %d, want 5 (null and missing ids are not tracked)", p.Len())
	}
	for _, tc := range []struct {
		id     string
		method string
		ok     bool
	}{
		{`"a\u003cb"`, "m0", true}, // re-encoded with an escape
		{`1.0`, "m1", true},        // a number spelled otherwise
		{`1e0`, "m2", true},        // the second request with id 1
		{`1`, "", false},           // both answered
		{`"1"`, "", false},         // a string is not a number
		{`0`, "m6", true},          // -0 is 0
	} {
		e, ok := p.Take([]byte(tc.id))
		if ok != tc.ok || e.Method != tc.method {
			t.Errorf("Take(%s) = %q %v, want %q %v", tc.id, e.Method, ok, tc.method, tc.ok)
		}
	}
	if e, ok := p.Peek([]byte(`"x"`)); !ok || string(e.ID) != `"x"` || e.Value != 3 {
		t.Errorf("Peek(x) = %+v %v", e, ok)
	}
	p.Add([]byte(`2`), "m7", 7)
	p.Add([]byte(`3`), "m8", 8)
	p.DeleteFunc(func(e Entry[int]) bool { return e.Value == 7 })
	all := p.Drain()
	if len(all) != 2 || all[0].Method != "m3" || all[1].Method != "m8" || p.Len() != 0 {
		t.Errorf("Drain = %+v (Len after %d), want m3 then m8", all, p.Len())
	}
}

// TestForwarder: a request goes out under an id of the forwarder's and
// its answer comes back with the client's id, method and value; requests
// of two clients with the same id do not collide.
func TestForwarder(t *testing.T) {
	f := Forwarder[string]{Prefix: "actctl-lease-"}
	out1, id1, err := f.Out([]byte(`{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{}}`), []byte(`1`), "session/prompt", "client A")
	if err != nil || string(out1) != `{"jsonrpc":"2.0","id":"actctl-lease-1","method":"session/prompt","params":{}}` {
		t.Fatalf("Out = %s, %v", out1, err)
	}
	_, id2, _ := f.Out([]byte(`{"id":1,"method":"m"}`), []byte(`1`), "m", "client B")
	if string(id2) != `"actctl-lease-2"` {
		t.Fatalf("second id = %s", id2)
	}
	if _, _, err := f.Out([]byte(`{"method":"m"}`), []byte(`1`), "m", "x"); err == nil {
		t.Error("a request without an id was forwarded")
	}
	e, ok := f.Back(id2)
	if !ok || string(e.ID) != "1" || e.Method != "m" || e.Value != "client B" {
		t.Errorf("Back(%s) = %+v %v", id2, e, ok)
	}
	f.DeleteFunc(func(e Entry[string]) bool { return e.Value == "client A" })
	if _, ok := f.Back(id1); ok {
		t.Error("a deleted request was given back")
	}
}
