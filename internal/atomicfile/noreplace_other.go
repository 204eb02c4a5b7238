//go:build !linux

package atomicfile

// renameNoReplace is not offered here: the caller checks and renames.
func renameNoReplace(tmp, target string) (ok bool, err error) { return false, nil }
