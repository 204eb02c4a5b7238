// Package lineframe is the JSON-RPC line of actctl's stdio streams. Parse
// classifies a line once, without decoding it, and its Envelope is handed
// to every reader of the line (the ACP client, the proxy). Reader bounds
// the messages of a newline-delimited stream (the stdio of actctl mcp): a
// line over the limit is never held whole, never passed on, and is
// answered with a JSON-RPC error, so that a peer sending a huge request
// gets a reason and the server keeps serving (docs/run.md, "run_agent").
package lineframe

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// CodeTooLarge is the JSON-RPC error code of a refused message: Invalid
// Request.
const CodeTooLarge = -32600

// headLen is how much of a refused line is kept to find its id.
const headLen = 64 << 10

// Reader passes on the complete lines of r of at most limit bytes (the
// newline excluded), one at a time. A longer line is read to its end
// without being kept, answered on w with a JSON-RPC error for its id
// (null when the id is not in the line's first 64 KiB), and reported to
// onRefuse with its length. Memory stays under limit plus the buffer of r.
type Reader struct {
	r        *bufio.Reader
	c        io.Closer
	w        io.Writer
	limit    int
	onRefuse func(size int64)
	line     []byte // what is left of the current line to pass on
}

// NewReader reads from r; w receives the error answers (it must be the
// writer the other answers go through, serialized: see Writer).
func NewReader(r io.Reader, w io.Writer, limit int, onRefuse func(size int64)) *Reader {
	c, _ := r.(io.Closer)
	return &Reader{r: bufio.NewReaderSize(r, 64<<10), c: c, w: w, limit: limit, onRefuse: onRefuse}
}

// Read implements io.Reader.
func (r *Reader) Read(p []byte) (int, error) {
	for len(r.line) == 0 {
		if err := r.next(); err != nil {
			return 0, err
		}
	}
	n := copy(p, r.line)
	r.line = r.line[n:]
	return n, nil
}

// Close closes the underlying reader, if it can be closed.
func (r *Reader) Close() error {
	if r.c == nil {
		return nil
	}
	return r.c.Close()
}

// next reads one line into r.line, or refuses it; a last line without a
// newline is passed on as it is.
func (r *Reader) next() error {
	var line []byte
	var size int64
	max := int64(r.limit) + 1 // the line and its newline
	for {
		chunk, err := r.r.ReadSlice('\n')
		size += int64(len(chunk))
		switch {
		case size <= max:
			line = append(line, chunk...)
		case len(line) < headLen:
			// Over the limit: only the head is kept, for the id.
			line = append(line, chunk[:min(len(chunk), headLen-len(line))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil && err != io.EOF {
			return err
		}
		if size > max {
			r.refuse(line, size)
			return err // nil, or io.EOF after a last line
		}
		if len(line) == 0 {
			return err // io.EOF
		}
		r.line = line
		return nil
	}
}

// refuse answers a line of size bytes, of which head is the start.
func (r *Reader) refuse(head []byte, size int64) {
	if r.onRefuse != nil {
		r.onRefuse(size)
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": idOf(head), "error": map[string]any{
		"code":    CodeTooLarge,
		"message": fmt.Sprintf("message of %d bytes refused: the limit is %d bytes", size, r.limit),
	}}
	b, _ := json.Marshal(msg)
	_, _ = r.w.Write(append(b, '\n'))
}

// idOf finds the top-level "id" of a JSON-RPC message from its start
// (json.RawMessage("null") when it cannot).
func idOf(head []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return json.RawMessage("null")
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			break
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break
		}
		if k == "id" {
			return v
		}
	}
	return json.RawMessage("null")
}

// Writer serializes the Write calls of several writers on w: each call's
// bytes stay together (a JSON-RPC message written in one call is never
// interleaved with another).
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter serializes writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write implements io.Writer.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// Close does nothing: the stream belongs to the caller.
func (w *Writer) Close() error { return nil }
