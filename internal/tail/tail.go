// Package tail keeps the last bytes written to a writer: the end of a
// process's stderr or output, for error messages (launch's supervised
// process, hooks' commands, control's kubectl).
package tail

import (
	"strings"
	"sync"
)

// Buffer keeps the last bytes written to it: the end of a process's stderr
// or output, for error messages (a backend that dies during its start
// usually says why in its last words). It is safe for concurrent use.
type Buffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// New returns a Buffer that keeps max bytes.
func New(max int) *Buffer { return &Buffer{max: max} }

// Write keeps the end of what was written; it never fails.
func (t *Buffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// Raw is what is kept, as written.
func (t *Buffer) Raw() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// String is what is kept without surrounding white space.
func (t *Buffer) String() string { return strings.TrimSpace(t.Raw()) }
