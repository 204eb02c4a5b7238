//go:build !unix

package atomicfile

import "os"

// createTemp creates a new temporary file in dir (os.CreateTemp).
func createTemp(dir string) (*os.File, error) { return os.CreateTemp(dir, TempPrefix+"*") }

// rename is os.Rename.
func rename(tmp, target string) error { return os.Rename(tmp, target) }
