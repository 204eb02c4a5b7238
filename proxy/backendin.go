package proxy

import (
	"bufio"
	"sync"
)

// backendIn is the backend's stdin: the client's lines, which clientLoop
// writes, and the proxy's own requests (session/set_mode: mode.go), one
// whole line at a time. A write that fails means the backend stopped
// reading: without a reader no request can be answered, so its group is
// killed (the exit path answers them). Once closed (the client's input
// ended), nothing more is written.
type backendIn struct {
	r      *relay
	mu     sync.Mutex
	bw     *bufio.Writer
	broken bool // no stdin, a failed write, or closed
}

func newBackendIn(r *relay) *backendIn {
	b := &backendIn{r: r, broken: true}
	if r.stdinW != nil {
		b.bw, b.broken = bufio.NewWriterSize(r.stdinW, bufSize), false
	}
	return b
}

// write writes line (a "\n" added if it lacks one), flushed at once when
// flush is set.
func (b *backendIn) write(line []byte, flush bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken || b.r.isDead.Load() {
		return
	}
	_, err := b.bw.Write(line)
	if err == nil && line[len(line)-1] != '\n' {
		err = b.bw.WriteByte('\n')
	}
	if err == nil && flush {
		err = b.bw.Flush()
	}
	if err != nil {
		b.fail(err)
		return
	}
	b.r.logLine(line)
}

// flush writes out what is buffered.
func (b *backendIn) flush() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.broken || b.bw.Buffered() == 0 {
		return
	}
	if err := b.bw.Flush(); err != nil {
		b.fail(err)
	}
}

// close flushes what is buffered and takes no more lines; the caller
// closes the stdin itself.
func (b *backendIn) close() {
	b.flush()
	b.mu.Lock()
	b.broken = true
	b.mu.Unlock()
}

func (b *backendIn) fail(err error) {
	b.broken = true
	if !b.r.isDead.Load() {
		b.r.log.printf("writing to backend stdin: %v; killing it", err)
		_ = b.r.proc.KillGroup()
	}
}
