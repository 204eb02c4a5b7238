package lineframe

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestLines: lines of any length up to the limit, in place or assembled
// past the read buffer; a last line without its newline; a line over the
// limit is ErrTooLong.
func TestLines(t *testing.T) {
	long := strings.Repeat("x", 40) + "\n"
	l := NewLines(strings.NewReader("a\n"+long+"tail"), 16, 64)
	for _, want := range []string{"a\n", long, "tail"} {
		got, err := l.Next()
		if err != nil || string(got) != want {
			t.Fatalf("Next: %q %v, want %q", got, err, want)
		}
	}
	if _, err := l.Next(); err != io.EOF {
		t.Fatalf("at the end: %v", err)
	}
	over := NewLines(strings.NewReader(strings.Repeat("y", 65)+"\n"), 16, 64)
	if _, err := over.Next(); !errors.Is(err, ErrTooLong) {
		t.Fatalf("a line over the limit: %v", err)
	}
	short := NewLines(strings.NewReader(strings.Repeat("y", 20)+"\n"), 16, 8)
	if _, err := short.Next(); !errors.Is(err, ErrTooLong) {
		t.Fatalf("a line over the limit, within the buffer: %v", err)
	}
	h := NewLines(strings.NewReader("b\nc"), 16, 64)
	if h.HasLine() {
		t.Error("HasLine before anything was read")
	}
	_, _ = h.Next()
	if h.HasLine() {
		t.Error("HasLine with only a partial line buffered")
	}
}

// TestLinesKeepNoBigBuffer: once a line longer than the buffer was read,
// the next call lets its memory go, whether the next line is short or
// long (a relay that saw one big message and then idles holds no copy).
func TestLinesKeepNoBigBuffer(t *testing.T) {
	const buf = 64
	big := strings.Repeat("x", 100*buf) + "\n"
	for _, next := range []string{"short\n", strings.Repeat("y", 10*buf) + "\n"} {
		r := NewLines(strings.NewReader(big+next+"tail\n"), buf, 1<<20)
		if l, err := r.Next(); err != nil || string(l) != big {
			t.Fatalf("first line: %d bytes, %v", len(l), err)
		}
		if l, err := r.Next(); err != nil || string(l) != next {
			t.Fatalf("second line: %q, %v", l, err)
		}
		if cap(r.big) > 4*len(next)+4*buf {
			t.Errorf("after a %d-byte line, then one of %d: %d bytes kept", len(big), len(next), cap(r.big))
		}
		if _, err := r.Next(); err != nil || cap(r.big) > 4*buf {
			t.Errorf("after a short line: %d bytes kept (%v)", cap(r.big), err)
		}
	}
}
