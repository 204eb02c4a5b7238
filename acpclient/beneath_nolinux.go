//go:build unix && !linux

package acpclient

import "os"

// openat2Beneath: only Linux has openat2; the walker does the work.
func openat2Beneath(root, string) (*os.File, bool, error) { return nil, false, nil }
