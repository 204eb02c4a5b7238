//go:build unix

package main

import (
	"errors"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/actctl/actctl/upserve"
)

// guardStderr sends up's log to a duplicate of its stderr when stderr is
// the process's own: once the reader of a pipe went away (`actctl up 2>&1
// | head`), a write fails with EPIPE instead of killing up with SIGPIPE
// (Go raises it only for writes to descriptors 1 and 2), and up stops as
// on SIGHUP: every agent gets its graceful stop, the socket is removed
// (docs/runtime.md, "Stopping").
func guardStderr(g *globals, s *upserve.Server, stop func()) {
	if g.Stderr != io.Writer(os.Stderr) {
		return
	}
	fd, err := syscall.Dup(int(os.Stderr.Fd()))
	if err != nil {
		return
	}
	syscall.CloseOnExec(fd)
	g.Stderr = &pipeWatch{w: os.NewFile(uintptr(fd), "stderr"), broken: func() {
		s.Stopping(signalName(syscall.SIGPIPE))
		stop()
	}}
}

// pipeWatch is a writer that calls broken once, in its own goroutine,
// when a write finds the pipe's reader gone.
type pipeWatch struct {
	w      io.Writer
	once   sync.Once
	broken func()
}

func (p *pipeWatch) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.once.Do(func() { go p.broken() })
	}
	return n, err
}
