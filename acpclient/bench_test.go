package acpclient

import (
	"context"
	"io"
	"testing"
)

// streamedUpdate is one agent_message_chunk, the most frequent message of
// a turn.
const streamedUpdate = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello, this is one streamed chunk of the answer."}}}}` + "\n"

// BenchmarkStreamedUpdate: a streamed update read from the backend's
// stdout and handled as the client does (framed, classified, shown to its
// session's observer, decoded, emitted): the allocations per update are
// the cost of the hottest path of a turn.
func BenchmarkStreamedUpdate(b *testing.B) {
	c := &Client{obs: nopObserver{}, sessions: map[string]*Session{}, readCtx: context.Background()}
	seen := &countingObserver{}
	s := &Session{c: c, id: "sess-1", obs: seen}
	s.thread = newThread(s.emit)
	c.sessions[s.id] = s
	in := newInbound(c, &repeatReader{line: []byte(streamedUpdate), n: b.N})
	b.ReportAllocs()
	b.ResetTimer()
	_ = in.read(newConn(c, nil))
	if seen.events != b.N {
		b.Fatalf("%d updates handled, want %d", seen.events, b.N)
	}
}

// countingObserver counts the events it is given.
type countingObserver struct{ events int }

func (o *countingObserver) Message([]byte) {}
func (o *countingObserver) Event(Event)    { o.events++ }

// repeatReader reads line n times.
type repeatReader struct {
	line []byte
	n    int
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, io.EOF
	}
	k := copy(p, r.line[r.off:])
	r.off += k
	if r.off == len(r.line) {
		r.off = 0
		r.n--
	}
	return k, nil
}
