package proxy

import (
	"bufio"
	"io"
	"sync"
	"sync/atomic"

	"github.com/actctl/actctl/internal/lineframe"
)

// bufSize is the read and write buffer of each direction. Messages larger
// than this are assembled in a separate slice, so typical traffic stays
// zero-copy on the read side and memory stays small.
const bufSize = 64 << 10

// errTooLong reports a line longer than Options.MaxMessageSize.
var errTooLong = lineframe.ErrTooLong

// lineReader splits a stream into newline-terminated lines of any length up
// to max (lineframe.Lines with the relay's buffer).
type lineReader struct{ l *lineframe.Lines }

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{lineframe.NewLines(r, bufSize, max)}
}

// next returns the next line including its "\n" (see lineframe.Lines.Next).
func (r *lineReader) next() ([]byte, error) { return r.l.Next() }

// hasLine reports whether next will return without blocking.
func (r *lineReader) hasLine() bool { return r.l.HasLine() }

// lockedWriter serializes whole lines to the client: the relay of backend
// output and the proxy's own error responses share it. After the first
// write error (the client went away) it discards everything and calls gone.
type lockedWriter struct {
	mu     sync.Mutex
	bw     *bufio.Writer
	failed bool
	closed atomic.Bool
	gone   func(error)
	log    func(line []byte) // each line written (the session's log)
}

func newLockedWriter(w io.Writer, gone func(error)) *lockedWriter {
	return &lockedWriter{bw: bufio.NewWriterSize(w, bufSize), gone: gone}
}

// writeLine writes line, adding a "\n" if it lacks one, and flushes when
// flush is set.
func (w *lockedWriter) writeLine(line []byte, flush bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed || w.closed.Load() {
		return
	}
	_, err := w.bw.Write(line)
	if err == nil && (len(line) == 0 || line[len(line)-1] != '\n') {
		err = w.bw.WriteByte('\n')
	}
	if err == nil && flush {
		err = w.bw.Flush()
	}
	if err != nil {
		w.failed = true
		w.gone(err)
		return
	}
	if w.log != nil {
		w.log(line)
	}
}

func (w *lockedWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.failed || w.closed.Load() || w.bw.Buffered() == 0 {
		return
	}
	if err := w.bw.Flush(); err != nil {
		w.failed = true
		w.gone(err)
	}
}

// close flushes and stops all further writes: after Run returns nothing
// more reaches the client. It never blocks: if a write to a client that
// stopped reading holds the lock, that write's data is simply the last.
func (w *lockedWriter) close() {
	if w.closed.Swap(true) || !w.mu.TryLock() {
		return
	}
	defer w.mu.Unlock()
	if !w.failed {
		_ = w.bw.Flush()
	}
}
