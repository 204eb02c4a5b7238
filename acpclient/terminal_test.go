package acpclient

import (
	"bytes"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
)

// TestTerminalRing: a terminal's ring keeps exactly the last max bytes of
// what was written, never holds more than max bytes (its buffer does not
// grow past it), and says when it dropped some. (issue #20 item 14)
func TestTerminalRing(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, limit := range []int{0, 1, 7, 64, 1000} {
		r := newRing(limit)
		var all []byte
		for i := 0; i < 300; i++ {
			p := make([]byte, rng.Intn(3*limit+2))
			rng.Read(p)
			r.write(p)
			all = append(all, p...)
			want := all[max(0, len(all)-limit):]
			if got := r.bytes(); !bytes.Equal(got, want) {
				t.Fatalf("max %d, after %d writes: kept %d bytes, want the last %d", limit, i+1, len(got), len(want))
			}
			if cap(r.buf) > limit {
				t.Fatalf("max %d: the buffer grew to %d bytes", limit, cap(r.buf))
			}
			if r.truncated() != (len(all) > limit) {
				t.Fatalf("max %d: truncated %v after %d bytes", limit, r.truncated(), len(all))
			}
		}
	}
}

// TestTerminalOutputCapped: whatever outputByteLimit the agent asks for,
// a terminal keeps at most MaxOutputLimit bytes, cut at a character
// boundary, and says it was truncated. (issue #20 item 14)
func TestTerminalOutputCapped(t *testing.T) {
	c, rec := startTestAgent(t, Options{})
	prompt(t, c, "term-flood 3145728")
	if want := "term-flood: kept 1048576 truncated true\n"; rec.String() != want {
		t.Fatalf("agent saw %q, want %q", rec.String(), want)
	}
}

// TestTerminalsBounded: an agent cannot keep more than MaxTerminals
// terminals (processes, each with its output) unreleased; the next
// terminal/create is refused saying why. (issue #20 item 14)
func TestTerminalsBounded(t *testing.T) {
	c, rec := startTestAgent(t, Options{})
	prompt(t, c, "term-many "+strconv.Itoa(MaxTerminals+10))
	if want := fmt.Sprintf("term-many: created %d, then: ", MaxTerminals); !strings.HasPrefix(rec.String(), want) ||
		!strings.Contains(rec.String(), fmt.Sprintf("%d terminals are not released; release one first", MaxTerminals)) {
		t.Fatalf("agent saw %q", rec.String())
	}
}
