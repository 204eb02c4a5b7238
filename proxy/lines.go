package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"
)

// bufSize is the read and write buffer of each direction. Messages larger
// than this are assembled in a separate slice, so typical traffic stays
// zero-copy on the read side and memory stays small.
const bufSize = 64 << 10

// errTooLong reports a line longer than Options.MaxMessageSize.
var errTooLong = errors.New("message exceeds the maximum message size")

// lineReader splits a stream into newline-terminated lines of any length up
// to max.
type lineReader struct {
	br  *bufio.Reader
	big []byte // assembles lines longer than the bufio buffer
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, bufSize), max: max}
}

// next returns the next line including its "\n". A final line without "\n"
// is returned as is before io.EOF. The slice is valid until the next call.
func (r *lineReader) next() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	if err == nil {
		if len(line) > r.max {
			return nil, errTooLong
		}
		return line, nil
	}
	if err != bufio.ErrBufferFull {
		if len(line) > 0 {
			r.big = append(r.big[:0], line...)
			return r.big, nil
		}
		return nil, err
	}
	if cap(r.big) > 4*bufSize {
		// Do not keep the memory of a previous huge message.
		r.big = nil
	}
	r.big = append(r.big[:0], line...)
	for {
		if len(r.big) > r.max {
			return nil, errTooLong
		}
		line, err = r.br.ReadSlice('\n')
		r.big = append(r.big, line...)
		switch err {
		case nil:
			if len(r.big) > r.max {
				return nil, errTooLong
			}
			return r.big, nil
		case bufio.ErrBufferFull:
		default:
			if len(r.big) > 0 {
				return r.big, nil
			}
			return nil, err
		}
	}
}

// hasLine reports whether a complete line is already buffered, i.e. whether
// next will return without blocking. Writers flush before a read that may
// block, which batches writes under load and adds no delay when idle.
func (r *lineReader) hasLine() bool {
	n := r.br.Buffered()
	if n == 0 {
		return false
	}
	b, _ := r.br.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// lockedWriter serializes whole lines to the client: the relay of backend
// output and the proxy's own error responses share it. After the first
// write error (the client went away) it discards everything and calls gone.
type lockedWriter struct {
	mu     sync.Mutex
	bw     *bufio.Writer
	failed bool
	closed atomic.Bool
	gone   func(error)
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
