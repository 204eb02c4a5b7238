package hub

import (
	"fmt"
	"io"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// progressStep is how many bytes of pack a fetch receives between two
// progress lines: counted in bytes, not time, so the output is the same on
// every run.
const progressStep = 4 << 20

// countingStorage is a cache repository's storage whose pack writer
// reports the bytes received (README, "Hub": progress on a terminal).
type countingStorage struct {
	*filesystem.Storage
	w    io.Writer
	name string
}

// PackfileWriter is the storage's, counting what the fetch writes.
func (s *countingStorage) PackfileWriter() (io.WriteCloser, error) {
	pw, err := s.Storage.PackfileWriter()
	if err != nil {
		return nil, err
	}
	return &countingWriter{WriteCloser: pw, w: s.w, name: s.name}, nil
}

// withProgress is repo seen through a storage that reports the bytes its
// fetches receive to w, as "hub: NAME: received 12.0 MiB" lines; repo
// itself when w is nil or repo's storage is not the filesystem's.
func withProgress(repo *git.Repository, w io.Writer, name string) *git.Repository {
	fs, ok := repo.Storer.(*filesystem.Storage)
	if w == nil || !ok {
		return repo
	}
	r, err := git.Open(&countingStorage{Storage: fs, w: w, name: name}, nil)
	if err != nil {
		return repo
	}
	return r
}

// countingWriter counts a pack's bytes: a line (rewritten in place with
// \r) every progressStep, the total when the pack is complete.
type countingWriter struct {
	io.WriteCloser
	w    io.Writer
	name string
	n    int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.WriteCloser.Write(p)
	before := c.n / progressStep
	c.n += int64(n)
	if c.n/progressStep != before {
		fmt.Fprintf(c.w, "\rhub: %s: received %s", c.name, byteSize(c.n))
	}
	return n, err
}

func (c *countingWriter) Close() error {
	err := c.WriteCloser.Close()
	fmt.Fprintf(c.w, "\rhub: %s: received %s\n", c.name, byteSize(c.n))
	return err
}

// byteSize is n in B, KiB, MiB or GiB, one decimal.
func byteSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
