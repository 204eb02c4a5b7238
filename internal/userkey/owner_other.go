//go:build !linux && !darwin

package userkey

import "io/fs"

// ownedByMe: the owner is not read here (the caches are off there anyway;
// package inputs, statComplete).
func ownedByMe(fs.FileInfo) bool { return true }
