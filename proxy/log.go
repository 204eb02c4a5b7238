package proxy

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"time"
)

// logger writes the proxy's own messages and the backend's stderr. Stdout
// belongs to the JSON-RPC stream, so nothing here ever goes there. Stderr
// gets "actctl proxy: ..." lines for the proxy's messages and the backend's
// stderr verbatim (what a user running the backend directly would see); the
// log file gets every line with a timestamp and its origin, so it can be read
// after the editor has closed the session.
type logger struct {
	mu     sync.Mutex
	stderr io.Writer
	file   io.Writer // may be nil
	now    func() time.Time
}

// tailMax is how much of the backend's stderr is kept for error messages:
// when a backend dies during start, its last words usually say why.
const tailMax = 2048

func (l *logger) printf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(l.stderr, "actctl proxy: %s\n", msg)
	if l.file != nil {
		fmt.Fprintf(l.file, "%s proxy: %s\n", l.now().Format(time.RFC3339Nano), msg)
	}
}

// backendStderr records one chunk (normally a line) of the backend's stderr.
func (l *logger) backendStderr(chunk []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.stderr.Write(chunk)
	if l.file != nil {
		fmt.Fprintf(l.file, "%s backend: %s", l.now().Format(time.RFC3339Nano), chunk)
		if len(chunk) > 0 && chunk[len(chunk)-1] != '\n' {
			_, _ = io.WriteString(l.file, "\n")
		}
	}
}

// stderrLog is the backend's stderr as launch copies it (a line at a
// time) into the logger.
type stderrLog struct{ l *logger }

func (s stderrLog) Write(chunk []byte) (int, error) {
	s.l.backendStderr(chunk)
	return len(chunk), nil
}

// noise reports output on the backend's stdout that is not JSON-RPC. It is
// never forwarded (the client would fail to parse it, and some clients drop
// the connection on a parse error); it is shown as a warning instead, cut to
// a readable size.
func (l *logger) noise(line []byte) {
	const show = 4096
	line = bytes.TrimRight(line, "\r\n")
	if len(line) > show {
		l.printf("warning: backend wrote non-JSON-RPC output to stdout (dropped, %d bytes): %s...", len(line), line[:show])
		return
	}
	l.printf("warning: backend wrote non-JSON-RPC output to stdout (dropped): %s", line)
}
