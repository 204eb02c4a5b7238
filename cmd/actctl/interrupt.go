package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/actctl/actctl/launch"
)

// signalled is the cause of a context cancelled by a signal.
type signalled struct{ sig os.Signal }

func (s signalled) Error() string { return "interrupted by " + signalName(s.sig) }

// signalName is the conventional name of sig (SIGINT, SIGTERM).
func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return sig.String()
}

// interruptContext is cancelled by the first SIGINT or SIGTERM, which is
// acknowledged on stderr: apply then stops at its next safe point (before
// its first write, or between writes with its journal in place). A second
// signal ends the process at once, which is as safe as a kill: every write
// is atomic and the journal lets the next apply finish.
func interruptContext(stderr io.Writer) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			fmt.Fprintf(stderr, "actctl: %s received: stopping at the next safe point (send it again to stop at once)\n", signalName(s))
			cancel(signalled{s})
		case <-done:
			return
		}
		select {
		case s := <-ch:
			fmt.Fprintf(stderr, "actctl: %s received again: stopping now; the next apply finishes the job\n", signalName(s))
			os.Exit(signalExit(s))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel(nil)
	}
}

// interruptedError gives err, when ctx was cancelled by a signal, the
// signal's exit status (130 for SIGINT) and says it was interrupted.
func interruptedError(ctx context.Context, err error) error {
	s, ok := context.Cause(ctx).(signalled)
	if err == nil || !ok {
		return err
	}
	if !strings.Contains(err.Error(), s.Error()) {
		err = fmt.Errorf("%w (%v)", err, s)
	}
	return withCode(signalExit(s.sig), err)
}

// signalExit is the shell's exit status for a process ended by sig.
func signalExit(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// stopContext is cancelled by the first SIGINT, SIGTERM or SIGHUP (its
// terminal closed; launch.Signals), after first is called with it; a
// second signal calls again, once. A long-running command (up) stops
// gracefully on the first and forces on the second. cancel ends ctx and
// keeps the signals handled (a shutdown under way can still be forced);
// stop ends that.
func stopContext(first, again func(os.Signal)) (ctx context.Context, cancel, stop func()) {
	ctx, cancelCause := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, launch.Signals...)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-ch:
			first(s)
			cancelCause(signalled{s})
		case <-done:
			return
		}
		select {
		case s := <-ch:
			again(s)
		case <-done:
		}
	}()
	return ctx, func() { cancelCause(nil) }, sync.OnceFunc(func() {
		signal.Stop(ch)
		close(done)
		cancelCause(nil)
	})
}
