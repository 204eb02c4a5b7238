//go:build unix

package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// KubeletWalk replays what the kubelet does to a volume with an fsGroup
// at every mount (its changeFilePermission; docs/deploy.md): every file
// and directory under dir, symbolic links aside, gets the group gid, files
// group read and write added, directories those, group search and setgid.
func KubeletWalk(t testing.TB, dir string, gid int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if err := os.Lchown(p, -1, gid); err != nil {
			return err
		}
		mode := fi.Mode().Perm() | 0o660
		if fi.IsDir() {
			mode |= 0o110 | fs.ModeSetgid
		}
		return os.Chmod(p, mode)
	})
	if err != nil {
		t.Fatalf("replay the kubelet's fsGroup walk on %s: %v", dir, err)
	}
}

// OwnGroup is a group this process is in, a supplementary one when it
// has one (as a pod's fsGroup is).
func OwnGroup() int {
	if gs, _ := os.Getgroups(); len(gs) > 0 {
		return gs[len(gs)-1]
	}
	return os.Getgid()
}
