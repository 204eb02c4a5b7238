package workspace

import (
	"bytes"
	"io"
	"strings"
	"sync"
)

// WarnOnce passes stderr through, except a warning line (": warning: ")
// printed in the previous cycle of a watch, so that `apply --watch` and
// `up` say a warning when it appears, not again on every re-apply (README, "Global flags and conventions":
// a warning is printed once). A warning that went away and comes back is
// printed again. Lines are written whole; it is safe for concurrent use
// (hooks print from their own goroutines).
type WarnOnce struct {
	mu        sync.Mutex
	w         io.Writer
	buf       []byte
	prev, cur map[string]bool
}

// NewWarnOnce is a WarnOnce writing to w.
func NewWarnOnce(w io.Writer) *WarnOnce {
	return &WarnOnce{w: w, prev: map[string]bool{}, cur: map[string]bool{}}
}

// cycle starts a new cycle: what the one before printed is not repeated.
func (o *WarnOnce) cycle() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.prev, o.cur = o.cur, map[string]bool{}
}

func (o *WarnOnce) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	for {
		i := bytes.IndexByte(o.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(o.buf[:i+1])
		o.buf = o.buf[i+1:]
		if strings.Contains(line, ": warning: ") {
			seen := o.prev[line]
			o.cur[line] = true
			if seen {
				continue
			}
		}
		if _, err := io.WriteString(o.w, line); err != nil {
			return len(p), err
		}
	}
}
