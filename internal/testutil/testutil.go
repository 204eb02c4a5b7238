// Package testutil holds what the tests of several packages share, so it
// exists once: a goroutine-safe output buffer a test can wait on (no
// sleeps), the ACP SDK's example agent and client, built once per test
// binary, a replay of the kubelet's fsGroup walk over a volume
// (KubeletWalk), a webhook signer (Sign), a bounded wait on a channel
// (Within) and the rule for a missing prerequisite (Missing). Only tests
// import it.
package testutil

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Deadline bounds every wait of WaitFor. It is not a performance
// threshold: it only turns a hang into a failure.
const Deadline = 30 * time.Second

// Within returns what c gives, or false when it gives nothing within
// Deadline: it turns a hang into a failure, and nothing waits for time
// to pass when c comes.
func Within[T any](c <-chan T) (T, bool) {
	timer := time.NewTimer(Deadline)
	defer timer.Stop()
	select {
	case v := <-c:
		return v, true
	case <-timer.C:
		var zero T
		return zero, false
	}
}

// Missing skips t for a prerequisite this machine lacks (a program, a
// package), except under CI (CI=true), where .ci/run installs every one:
// there it fails, so that CI never passes a test it did not run.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	why := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: CI must run this test (.ci/run installs what it needs)", why)
	}
	t.Skip(why)
}

// Buffer is a goroutine-safe bytes.Buffer for a process's output.
type Buffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed (and replaced) on every write
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WaitFor blocks until the buffer holds text; false if it never does
// within Deadline.
func (s *Buffer) WaitFor(text string) bool {
	t := time.NewTimer(Deadline)
	defer t.Stop()
	for {
		s.mu.Lock()
		if strings.Contains(s.b.String(), text) {
			s.mu.Unlock()
			return true
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-t.C:
			return false
		}
	}
}

var (
	sdkOnce sync.Once
	sdkDir  string
	sdkErr  error
)

// SDKExamples builds the ACP SDK's example agent and client
// (github.com/coder/acp-go-sdk/example/{agent,client}) once per test
// binary and returns the directory that holds them.
func SDKExamples(t testing.TB) string {
	t.Helper()
	sdkOnce.Do(func() {
		goBin, err := exec.LookPath("go")
		if err != nil {
			goBin = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
		}
		if sdkDir, sdkErr = os.MkdirTemp("", "actctl-sdk-examples-"); sdkErr != nil {
			return
		}
		for _, name := range []string{"agent", "client"} {
			out, err := exec.Command(goBin, "build", "-o", filepath.Join(sdkDir, name),
				"github.com/coder/acp-go-sdk/example/"+name).CombinedOutput()
			if err != nil {
				sdkErr = errors.New(string(out))
				return
			}
		}
	})
	if sdkErr != nil {
		t.Fatalf("build the SDK examples: %v", sdkErr)
	}
	return sdkDir
}

// Cleanup removes what SDKExamples built; call it from TestMain after the
// tests ran.
func Cleanup() {
	if sdkDir != "" {
		_ = os.RemoveAll(sdkDir)
	}
}
