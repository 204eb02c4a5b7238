package supervise

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/clock"
)

// BenchmarkRestartAfterCrash: from SIGKILL of a supervised process to its
// replacement being up, with the backoff set to 1 us so that what remains
// is actctl's own cost (exit detection, group kill, fork and exec of
// /bin/sh). The real backoff (1 s first) comes on top.
func BenchmarkRestartAfterCrash(b *testing.B) {
	p := ServicePolicy()
	p.InitialBackoff, p.MaxBackoff, p.MaxFailures = time.Microsecond, time.Microsecond, 1<<30
	events := make(chan Event, 16)
	s := New("bench", Command{Path: "/bin/sh", Args: []string{"-c", "exec sleep 1000"}}, p, clock.Real(), func(ev Event) {
		if ev.Name == EventStart {
			events <- ev
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	s.Start(ctx)
	pid := (<-events).Pid
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		syscall.Kill(pid, syscall.SIGKILL)
		pid = (<-events).Pid
	}
}
