package hub

import (
	"bytes"
	"testing"
)

type nopWriteCloser struct{ bytes.Buffer }

func (*nopWriteCloser) Close() error { return nil }

// TestCountingWriter: a line each progressStep bytes of pack, rewritten in
// place, then the total on a line of its own.
func TestCountingWriter(t *testing.T) {
	var out bytes.Buffer
	w := &countingWriter{WriteCloser: &nopWriteCloser{}, w: &out, name: "team"}
	chunk := make([]byte, 1<<20)
	for range 9 {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "\rhub: team: received 4.0 MiB\rhub: team: received 8.0 MiB\rhub: team: received 9.0 MiB\n"
	if out.String() != want {
		t.Errorf("progress %q, want %q", out.String(), want)
	}
	for n, s := range map[int64]string{0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 3 << 30: "3.0 GiB"} {
		if got := byteSize(n); got != s {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, s)
		}
	}
}
