package rpcpeer

import (
	"strconv"
	"sync"
)

// Forwarder relays requests of several clients to one peer under ids of
// its own (Prefix then a count, as a JSON string), so that the clients'
// ids, and the connection's own requests, never collide there; the
// answer is given back its client's id. It is safe for concurrent use.
type Forwarder[V any] struct {
	// Prefix starts every id the Forwarder gives ("actctl-lease-").
	Prefix string

	mu    sync.Mutex
	next  uint64
	calls Pending[forwarded[V]]
}

// forwarded is what a Forwarder keeps of a request: the client's id.
type forwarded[V any] struct {
	clientID []byte
	v        V
}

// Out is the request line with an id of the Forwarder's, recorded with
// the client's raw id, the method and v; id is the token the line now
// carries (Back(id) forgets a request whose write failed). An error
// (line is not an object) records nothing.
func (f *Forwarder[V]) Out(line, clientID []byte, method string, v V) (out, id []byte, err error) {
	f.mu.Lock()
	f.next++
	n := f.next
	f.mu.Unlock()
	id = append(strconv.AppendUint(append([]byte(`"`), f.Prefix...), n, 10), '"')
	if out, err = WithID(line, id); err != nil {
		return nil, nil, err
	}
	f.mu.Lock()
	f.calls.Add(id, method, forwarded[V]{clientID: append([]byte(nil), clientID...), v: v})
	f.mu.Unlock()
	return out, id, nil
}

// Back takes the request that an answer of the peer's, of raw id token
// id, answers: the entry has the client's id, the method and the value.
func (f *Forwarder[V]) Back(id []byte) (Entry[V], bool) {
	f.mu.Lock()
	e, ok := f.calls.Take(id)
	f.mu.Unlock()
	return clientEntry(e), ok
}

// DeleteFunc forgets the requests for which del is true (the entries it
// is given have the client's id); their answers are not given back.
func (f *Forwarder[V]) DeleteFunc(del func(Entry[V]) bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls.DeleteFunc(func(e Entry[forwarded[V]]) bool { return del(clientEntry(e)) })
}

// clientEntry is a forwarded request's entry as its client sent it.
func clientEntry[V any](e Entry[forwarded[V]]) Entry[V] {
	return Entry[V]{ID: e.Value.clientID, Method: e.Method, Seq: e.Seq, Value: e.Value.v}
}
