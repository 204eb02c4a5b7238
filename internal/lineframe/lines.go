package lineframe

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ErrTooLong reports a line longer than the limit of a Lines.
var ErrTooLong = errors.New("message exceeds the maximum message size")

// Lines splits a stream into newline-terminated lines of any length up to
// a limit, without copying: a line that fits the read buffer is returned
// in place, a longer one is assembled in a slice of its own (the proxy's
// relay reads both directions with it).
type Lines struct {
	br  *bufio.Reader
	big []byte // assembles lines longer than the bufio buffer
	max int
	buf int
}

// NewLines reads r with a buffer of bufSize bytes; a line longer than max
// bytes (its newline included) is ErrTooLong.
func NewLines(r io.Reader, bufSize, max int) *Lines {
	return &Lines{br: bufio.NewReaderSize(r, bufSize), max: max, buf: bufSize}
}

// Next returns the next line including its "\n". A final line without "\n"
// is returned as is before io.EOF. The slice is valid until the next call.
func (r *Lines) Next() ([]byte, error) {
	if cap(r.big) > 4*r.buf {
		// The last line was a big one: its memory is not kept while
		// short lines follow (an idle relay would hold it for good).
		r.big = nil
	}
	line, err := r.br.ReadSlice('\n')
	if err == nil {
		if len(line) > r.max {
			return nil, ErrTooLong
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
	r.big = append(r.big[:0], line...)
	for {
		if len(r.big) > r.max {
			return nil, ErrTooLong
		}
		line, err = r.br.ReadSlice('\n')
		r.big = append(r.big, line...)
		switch err {
		case nil:
			if len(r.big) > r.max {
				return nil, ErrTooLong
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

// HasLine reports whether a complete line is already buffered, i.e. whether
// Next will return without blocking. Writers flush before a read that may
// block, which batches writes under load and adds no delay when idle.
func (r *Lines) HasLine() bool {
	n := r.br.Buffered()
	if n == 0 {
		return false
	}
	b, _ := r.br.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}
