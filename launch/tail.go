package launch

import (
	"strings"
	"sync"
)

// Tail keeps the last bytes written to it: the end of a process's stderr
// or output, for error messages (a backend that dies during its start
// usually says why in its last words). It is safe for concurrent use.
type Tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

// NewTail returns a Tail that keeps max bytes.
func NewTail(max int) *Tail { return &Tail{max: max} }

// Write keeps the end of what was written; it never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// Raw is what is kept, as written.
func (t *Tail) Raw() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// String is what is kept without surrounding white space.
func (t *Tail) String() string { return strings.TrimSpace(t.Raw()) }
