//go:build !linux && !darwin

package inputs

import "io/fs"

// sysStat adds nothing where ctime and inode are not read: size, mode and
// mtime alone decide (a change that keeps all three is not seen).
func sysStat(*Stat, fs.FileInfo) {}

// statComplete: without ctime and inode stat data cannot be trusted, so
// nothing is recorded and every apply takes the normal path.
const statComplete = false

// fsClock: the clock files are stamped with is not known here; settleMeta
// falls back to the racy rule of markRacy.
func fsClock() (int64, bool) { return 0, false }
