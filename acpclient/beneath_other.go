//go:build !unix

package acpclient

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/actctl/actctl/internal/atomicfile"
)

// fileID is not kept where there is no walker: see openBeneath.
type fileID struct{}

func statID(string) (fileID, error) { return fileID{}, nil }

// openBeneath, where there is no openat with O_NOFOLLOW (Windows), is a
// best effort: the path's symlinks are resolved and the result checked
// to lie in r before it is opened, which a link swapped in between those
// two steps defeats (docs/run.md says so).
func openBeneath(r root, rel string) (*os.File, error) {
	p, err := resolveIn(r, rel)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", rel)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// writeBeneath is the best effort of openBeneath for a write.
func writeBeneath(r root, rel string, data []byte, check func(rel string) error) error {
	p, err := resolveIn(r, rel)
	if err != nil {
		return err
	}
	real, err := filepath.Rel(r.real, p)
	if err != nil {
		return err
	}
	for d := real; d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if err := check(d); err != nil {
			return err
		}
	}
	if _, err := atomicfile.MkdirAll(filepath.Dir(p)); err != nil {
		return err
	}
	return atomicfile.Write(p, data, 0o644)
}

// resolveIn is the real path of rel below r, refused outside r. A
// dangling link at the end is followed by hand (realPath keeps its name,
// and atomicfile.Write would write where it points).
func resolveIn(r root, rel string) (string, error) {
	p, err := realPath(filepath.Join(r.real, rel))
	for hops := 0; err == nil; hops++ {
		if _, ok := within(r.real, p); !ok {
			return "", &errOutside{why: "a symlink on the way leads out of them"}
		}
		target, lerr := os.Readlink(p)
		if lerr != nil {
			return p, nil
		}
		if hops == 40 {
			return "", fmt.Errorf("%s: too many symlinks", rel)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p, err = realPath(target)
	}
	return "", err
}
