//go:build !unix

package main

import "os"

// inode: FileInfo carries no inode number here; size and mtime remain.
func inode(os.FileInfo) uint64 { return 0 }
