package rpcpeer

import (
	"cmp"
	"slices"

	"github.com/actctl/actctl/internal/lineframe"
)

// Pending is a table of requests awaiting their answers, keyed by id as
// lineframe.AppendIDKey spells it: a peer that decodes and re-encodes an
// id ("a\u003cb" for "a<b", 1.0 for 1) still finds its request. Several
// requests may be in flight under one id; an answer takes the oldest.
// Pending is not safe for concurrent use: its owner holds its own lock
// (the state it guards with the table is the owner's too).
type Pending[V any] struct {
	m   map[string][]Entry[V]
	seq uint64
	n   int
}

// Entry is one request in a Pending table.
type Entry[V any] struct {
	ID     []byte // the raw id token as the request carried it (a copy)
	Method string
	Seq    uint64 // arrival order
	Value  V
}

// Add records a request of raw id token id; false (nothing recorded) for
// a null or missing id, which cannot be answered.
func (p *Pending[V]) Add(id []byte, method string, v V) bool {
	var kb [64]byte
	key, ok := lineframe.AppendIDKey(kb[:0], id)
	if !ok {
		return false
	}
	if p.m == nil {
		p.m = map[string][]Entry[V]{}
	}
	p.seq++
	p.n++
	p.m[string(key)] = append(p.m[string(key)], Entry[V]{ID: append([]byte(nil), id...), Method: method, Seq: p.seq, Value: v})
	return true
}

// Peek is the oldest request in flight under id.
func (p *Pending[V]) Peek(id []byte) (Entry[V], bool) {
	var kb [64]byte
	key, ok := lineframe.AppendIDKey(kb[:0], id)
	if !ok {
		return Entry[V]{}, false
	}
	if es := p.m[string(key)]; len(es) > 0 {
		return es[0], true
	}
	return Entry[V]{}, false
}

// Take removes and returns the oldest request in flight under id (the
// one an answer to id answers).
func (p *Pending[V]) Take(id []byte) (Entry[V], bool) {
	var kb [64]byte
	key, ok := lineframe.AppendIDKey(kb[:0], id)
	if !ok {
		return Entry[V]{}, false
	}
	es := p.m[string(key)]
	if len(es) == 0 {
		return Entry[V]{}, false
	}
	e := es[0]
	if len(es) == 1 {
		delete(p.m, string(key))
	} else {
		p.m[string(key)] = es[1:]
	}
	p.n--
	return e, true
}

// Len is the number of requests in flight.
func (p *Pending[V]) Len() int { return p.n }

// DeleteFunc removes the requests for which del is true.
func (p *Pending[V]) DeleteFunc(del func(Entry[V]) bool) {
	for k, es := range p.m {
		kept := slices.DeleteFunc(es, del)
		p.n -= len(es) - len(kept)
		if len(kept) == 0 {
			delete(p.m, k)
		} else {
			p.m[k] = kept
		}
	}
}

// Drain removes every request and returns them in arrival order (to be
// answered when the peer is gone).
func (p *Pending[V]) Drain() []Entry[V] {
	all := make([]Entry[V], 0, p.n)
	for _, es := range p.m {
		all = append(all, es...)
	}
	clear(p.m)
	p.n = 0
	slices.SortFunc(all, func(a, b Entry[V]) int { return cmp.Compare(a.Seq, b.Seq) })
	return all
}
