//go:build !linux

package acptestagent

import "os"

// exchange swaps the entries a and b through a third name: for a moment
// one of them is missing.
func exchange(a, b string) error {
	tmp := a + ".exchange"
	if err := os.Rename(a, tmp); err != nil {
		return err
	}
	if err := os.Rename(b, a); err != nil {
		return err
	}
	return os.Rename(tmp, b)
}
