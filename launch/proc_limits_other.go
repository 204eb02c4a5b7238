//go:build !linux

package launch

// checkLimits: only Linux is checked before a start (docs/runtime.md,
// "Limits"); elsewhere a start that crosses a limit fails with the
// system's error.
func checkLimits() error { return nil }

// limitError: see the Linux variant.
func limitError(err error) error { return err }
