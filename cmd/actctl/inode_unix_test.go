//go:build unix

package main

import (
	"os"
	"syscall"
)

// inode is fi's inode number, so a replaced file (same size and mtime)
// still shows as changed.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
