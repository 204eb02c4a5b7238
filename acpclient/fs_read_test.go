package acpclient

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
)

// lineStream is a file of lines of lineLen bytes, line k (from 1)
// holding k in 15 digits and dots, made as it is read: a big file that
// takes no memory.
type lineStream struct {
	pos, size int64
	line      [lineLen]byte // the line pos is in
	k         int64         // its number (0: none yet)
}

const lineLen = 256

func (s *lineStream) Read(p []byte) (int, error) {
	if s.pos >= s.size {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && s.pos < s.size {
		if k := s.pos/lineLen + 1; k != s.k {
			s.k = k
			if s.line[lineLen-1] == 0 {
				copy(s.line[:], lineOf(0))
			}
			for i := 14; i >= 0; i-- { // no allocation: only the read's count
				s.line[i] = byte('0' + k%10)
				k /= 10
			}
		}
		m := copy(p[n:], s.line[s.pos%lineLen:])
		n += m
		s.pos += int64(m)
	}
	return n, nil
}

// lineOf is line k of a lineStream.
func lineOf(k int) string {
	return fmt.Sprintf("%015d%s\n", k, strings.Repeat(".", lineLen-16))
}

// TestReadTextLarge: a 400 MB file is refused whole without a byte of it
// being read, and two lines far into it are served through the fixed
// buffer: what the read allocates is a small fraction of the file (issue
// #20 item 14: such a read took actctl to 13 GB).
func TestReadTextLarge(t *testing.T) {
	const size = 400 << 20
	s := &lineStream{size: size}
	_, err := readTextFrom(s, size, "/w/big.log", nil, nil, MaxReadBytes)
	var re *acp.RequestError
	if !errors.As(err, &re) || !strings.Contains(re.Message, "/w/big.log is 419430400 bytes, more than the") || s.pos != 0 {
		t.Errorf("whole read: %v, %d bytes read", err, s.pos)
	}
	line, limit := size/lineLen-1, 2
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := readTextFrom(&lineStream{size: size}, size, "/w/big.log", &line, &limit, MaxReadBytes)
	runtime.ReadMemStats(&after)
	if want := lineOf(line) + lineOf(line+1); err != nil || got != want {
		t.Fatalf("lines %d-%d: %q, %v; want %q", line, line+1, got, err, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("a ranged read of 400 MB allocated %d bytes", alloc)
	}
}

// TestReadTextRanges: line and limit as before (1-based line, limit
// lines, a negative limit or none: to the end), the answer bounded and
// UTF-8 checked whatever the range.
func TestReadTextRanges(t *testing.T) {
	const text = "a\nb\nc\nd"
	p := func(n int) *int { return &n }
	for _, tc := range []struct {
		line, limit *int
		max         int64
		want, err   string
	}{
		{nil, nil, 100, text, ""}, {p(2), nil, 100, "b\nc\nd", ""}, {p(2), p(2), 100, "b\nc\n", ""},
		{nil, p(1), 100, "a\n", ""}, {p(0), p(-1), 100, text, ""}, {p(9), p(1), 100, "", ""},
		{p(1), p(0), 100, "", ""}, {p(4), p(5), 100, "d", ""},
		{nil, nil, 3, "", "7 bytes, more than the 3 bytes"}, {p(2), nil, 3, "", "the lines asked for are more than the 3 bytes"},
		{p(3), p(1), 3, "c\n", ""}, {p(3), p(1), 2, "", "takes 3 bytes escaped for JSON, more than the 2 bytes"},
	} {
		got, err := readTextFrom(strings.NewReader(text), int64(len(text)), "/f", tc.line, tc.limit, tc.max)
		if tc.err != "" {
			if err == nil || !strings.Contains(errMessage(err), tc.err) {
				t.Errorf("%v %v max %d: %q, %v; want error %q", tc.line, tc.limit, tc.max, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%v %v max %d: %q, %v; want %q", tc.line, tc.limit, tc.max, got, err, tc.want)
		}
	}
	if _, err := readTextFrom(strings.NewReader("<a>&"), 4, "/w/x.html", nil, nil, 10); !strings.Contains(errMessage(err), "/w/x.html: the text asked for takes 19 bytes escaped for JSON") {
		t.Errorf("4 bytes that take 19 in JSON: %v", err)
	}
	bad := "ok\ncaf\xe9\n"
	for _, line := range []*int{nil, p(2)} {
		_, err := readTextFrom(strings.NewReader(bad), int64(len(bad)), "/w/menu.txt", line, nil, 100)
		if !strings.Contains(errMessage(err), "/w/menu.txt is not valid UTF-8 text") {
			t.Errorf("latin-1 from line %v: %v", line, err)
		}
	}
	if got, err := readTextFrom(strings.NewReader(bad), int64(len(bad)), "/w/menu.txt", nil, p(1), 100); err != nil || got != "ok\n" {
		t.Errorf("the valid first line: %q, %v", got, err)
	}
}

func errMessage(err error) string {
	var re *acp.RequestError
	if errors.As(err, &re) {
		return re.Message
	}
	if err == nil {
		return ""
	}
	return err.Error()
}
