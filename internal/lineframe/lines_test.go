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
