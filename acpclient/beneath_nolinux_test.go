//go:build unix && !linux

package acpclient

import "testing"

// eachLookup runs f with the walker, the only lookup here.
func eachLookup(t *testing.T, f func(t *testing.T)) { t.Run("walker", f) }
