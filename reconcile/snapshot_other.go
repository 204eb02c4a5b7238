//go:build !linux

package reconcile

// Without openat2 every path takes the snapshot's slow path.

func openDirFD(string) int { return -1 }

func closeFD(int) {}

func fastRead(*FileInfo, int, string, bool) bool { return false }
