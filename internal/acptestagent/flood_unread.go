package acptestagent

import (
	"io"
	"os"
	"sync"
)

// stdin is the agent's stdin as its connection reads it; the op
// flood-unread (flood_unread_unix.go) stops it.
var stdin = &stoppable{r: os.Stdin, stop: make(chan struct{})}

// stoppable is a reader that reads nothing more once stopReading was
// called: a Read then blocks forever. A Read under way then takes at most
// maxRead bytes.
type stoppable struct {
	r    io.Reader
	once sync.Once
	stop chan struct{}
}

func (s *stoppable) stopReading() { s.once.Do(func() { close(s.stop) }) }

func (s *stoppable) Read(p []byte) (int, error) {
	select {
	case <-s.stop:
		select {}
	default:
	}
	return s.r.Read(p[:min(len(p), maxRead)])
}

const maxRead = 4 << 10
