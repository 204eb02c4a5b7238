package rpcpeer

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/lineframe"
)

// Trace is the ACP diagnostics of `--debug-acp` (docs/plugins.md,
// "Diagnostics"): one line per message a relay or a client passes, with
// when, which way, its kind, method, id, session, an update's kind and
// tool kind, and its size. Never a message's text: what a redact plugin
// names cannot reach it. A nil *Trace traces nothing.
type Trace struct {
	W   io.Writer
	Now func() time.Time // nil: time.Now

	mu sync.Mutex
}

// Directions of a traced message.
const (
	ToAgent  = "->agent"
	ToClient = "->client"
)

// Line traces one message of envelope env going dir.
func (t *Trace) Line(dir string, line []byte, env *lineframe.Envelope) {
	if t == nil || env.Kind == lineframe.KindNone {
		return
	}
	t.printf("%s %s", dir, Summary(line, env))
}

// printf writes one trace line, stamped.
func (t *Trace) printf(format string, args ...any) {
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.W, "actctl acp: %s "+format+"\n", append([]any{now().UTC().Format("15:04:05.000")}, args...)...)
}

// Summary is what a trace says of a line: kind, method, id, session,
// update and tool kinds, size.
func Summary(line []byte, env *lineframe.Envelope) string {
	b := []byte(kindName(env.Kind))
	if m, ok := lineframe.Unquote(env.Method); ok {
		b = appendSafe(append(b, ' '), m)
	}
	if env.ID != nil {
		b = appendSafe(append(b, " id="...), env.ID)
	}
	if env.IsError {
		b = append(b, " error"...)
	}
	if sid, ok := lineframe.Unquote(lineframe.Member(line, env.Params, "sessionId")); ok {
		b = appendSafe(append(b, " session="...), sid)
	}
	if u := lineframe.Member(line, env.Params, "update"); u != nil {
		span := lineframe.Span{Start: 0, End: len(u)}
		if k, ok := lineframe.Unquote(lineframe.Member(u, span, "sessionUpdate")); ok {
			b = appendSafe(append(b, " update="...), k)
		}
		if k, ok := lineframe.Unquote(lineframe.Member(u, span, "kind")); ok {
			b = appendSafe(append(b, " tool="...), k)
		}
	}
	return string(append(append(append(b, ' '), strconv.Itoa(len(line))...), " B"...))
}

func kindName(k lineframe.Kind) string {
	switch k {
	case lineframe.KindRequest:
		return "request"
	case lineframe.KindNotification:
		return "notification"
	case lineframe.KindResponse:
		return "response"
	}
	return "line"
}

// appendSafe appends what a peer wrote with its control characters and
// spaces as '?': one line a field, whatever the peer sends.
func appendSafe(b, s []byte) []byte {
	for _, c := range s {
		if c <= ' ' || c == 0x7f {
			c = '?'
		}
		b = append(b, c)
	}
	return b
}

// Writer is w with every line written through it traced going dir
// (`proxy --lease` traces the stream it copies: the lines are the ones
// the client sends and gets, after up's plugins). A nil *Trace gives w
// itself. A line is traced once it is complete; its bytes reach w as
// they are written.
func (t *Trace) Writer(dir string, w io.Writer) io.Writer {
	if t == nil {
		return w
	}
	return &traceWriter{t: t, dir: dir, w: w}
}

// traceWriter is Trace.Writer's: partial holds a line not yet complete.
type traceWriter struct {
	t       *Trace
	dir     string
	w       io.Writer
	partial []byte
}

// Write traces each line p completes, then writes p: a line is traced
// before its reader can have it, so a peer that ends the connection on
// an answer never ends it before the answer's trace line (a copy that
// traced after writing lost its last lines to the proxy's exit).
func (tw *traceWriter) Write(p []byte) (int, error) {
	tw.trace(p)
	return tw.w.Write(p)
}

// trace traces the lines p completes and keeps its partial last one.
func (tw *traceWriter) trace(p []byte) {
	rest := p
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			tw.partial = append(tw.partial, rest...)
			return
		}
		line := rest[:i]
		if len(tw.partial) > 0 {
			line = append(tw.partial, line...)
			tw.partial = tw.partial[:0]
		}
		env := lineframe.Parse(line)
		tw.t.Line(tw.dir, line, &env)
		rest = rest[i+1:]
	}
}
