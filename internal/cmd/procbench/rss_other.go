//go:build !linux

package main

import "os"

// maxRSS is 0 (unknown) where ru_maxrss is not in KiB or not given.
func maxRSS(*os.ProcessState) int64 { return 0 }
