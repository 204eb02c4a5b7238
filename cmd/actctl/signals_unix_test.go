//go:build unix

package main

import (
	"context"
	"os"
	"syscall"
	"testing"
)

// TestSignalPolicies: each kind of command's policy, driven by SIGTERM
// sent to this process: the cause of the cancelled context (the exit
// status of a turn, NotifyContext's text otherwise) and, for up, the
// graceful stop and then the forcing second signal.
func TestSignalPolicies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy signalPolicy
		cause  string
		code   int
	}{
		{"cancel", cancelPolicy, "terminated signal received", exitError},
		{"turn", turnPolicy, "interrupted (terminated)", 128 + int(syscall.SIGTERM)},
		{"relay", relayPolicy, "terminated signal received", exitError},
	} {
		ctx, _, stop := onSignals(tc.policy)
		kill(t, syscall.SIGTERM)
		<-ctx.Done()
		cause := context.Cause(ctx)
		if cause.Error() != tc.cause || codeOf(cause) != tc.code {
			t.Errorf("%s: cause %q (exit %d), want %q (exit %d)", tc.name, cause, codeOf(cause), tc.cause, tc.code)
		}
		stop()
	}
	stopping, forced := make(chan os.Signal, 1), make(chan os.Signal, 1)
	ctx, _, stop := onSignals(gracefulPolicy(func(s os.Signal) { stopping <- s }, func(s os.Signal) { forced <- s }))
	defer stop()
	kill(t, syscall.SIGTERM)
	if s := <-stopping; s != syscall.SIGTERM {
		t.Errorf("graceful stop on %v", s)
	}
	<-ctx.Done()
	if got := context.Cause(ctx); got != (signalled{syscall.SIGTERM}) {
		t.Errorf("up's cause %v, want signalled SIGTERM", got)
	}
	kill(t, syscall.SIGTERM)
	if s := <-forced; s != syscall.SIGTERM {
		t.Errorf("forced on %v", s)
	}
}

// kill sends sig to this process.
func kill(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), sig); err != nil {
		t.Fatal(err)
	}
}
