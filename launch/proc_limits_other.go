//go:build !linux

package launch

// checkLimits: only Linux is checked before a start (docs/runtime.md,
// "Limits"); elsewhere a start that crosses a limit fails with the
// system's error.
func checkLimits() error { return nil }

// HitLimit: see the Linux variant; elsewhere no error is read as a limit.
func HitLimit(error) *LimitError { return nil }
