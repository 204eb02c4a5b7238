package lockedfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func open(t *testing.T, p string) *os.File {
	t.Helper()
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestTryLockExcludes: a second descriptor cannot take a held lock, and
// can once it is released (by Unlock, or by closing the holder).
func TestTryLockExcludes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "lock")
	a, b := open(t, p), open(t, p)
	if err := TryLock(a); err != nil {
		t.Fatal(err)
	}
	if err := TryLock(b); !errors.Is(err, ErrWouldBlock) {
		t.Fatalf("second TryLock = %v, want ErrWouldBlock", err)
	}
	if err := Unlock(a); err != nil {
		t.Fatal(err)
	}
	if err := TryLock(b); err != nil {
		t.Fatalf("TryLock after Unlock = %v", err)
	}
	b.Close()
	if err := TryLock(a); err != nil {
		t.Fatalf("TryLock after the holder closed = %v", err)
	}
}

// TestWait: Wait returns try's own error at once, ErrWouldBlock when the
// wait is over, and ctx's error when ctx ends first.
func TestWait(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	err := Wait(context.Background(), time.Hour, time.Millisecond, time.Millisecond, func() error { calls++; return boom })
	if err != boom || calls != 1 {
		t.Fatalf("Wait = %v after %d calls, want boom after 1", err, calls)
	}
	calls = 0
	err = Wait(context.Background(), 0, time.Millisecond, time.Millisecond, func() error { calls++; return ErrWouldBlock })
	if !errors.Is(err, ErrWouldBlock) || calls < 1 {
		t.Fatalf("Wait with no time = %v", err)
	}
	calls = 0
	err = Wait(context.Background(), time.Hour, time.Millisecond, time.Millisecond, func() error {
		if calls++; calls < 3 {
			return ErrWouldBlock
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("Wait = %v after %d calls, want nil after 3", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	err = Wait(ctx, time.Hour, time.Millisecond, time.Millisecond, func() error { cancel(); return ErrWouldBlock })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait with ctx cancelled = %v", err)
	}
}
