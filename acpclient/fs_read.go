package acpclient

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"

	"github.com/actctl/actctl/internal/rpcpeer"
)

// MaxReadBytes bounds the text one fs/read_text_file answer carries,
// escaped for JSON. A whole file over it is refused without being read; a
// part of it asked for with line and limit is served by reading up to
// that part only, in a buffer of fixed size, so a huge file costs no
// memory in proportion to it (docs/run.md).
const MaxReadBytes = 8 << 20

// readBuffer is the size of the buffer a ranged read goes through.
const readBuffer = 64 << 10

// readText reads the text f holds: all of it, or limit lines from the
// 1-based line. The answer must be valid UTF-8 (invalid bytes would reach
// the agent as U+FFFD, and its edit would destroy them) and within max
// bytes; otherwise the error says so, naming path.
func readText(f *os.File, path string, line, limit *int, max int64) (string, error) {
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	return readTextFrom(f, fi.Size(), path, line, limit, max)
}

// readTextFrom is readText on r, which holds size bytes.
func readTextFrom(r io.Reader, size int64, path string, line, limit *int, max int64) (string, error) {
	var b []byte
	var err error
	if ranged(line, limit) {
		b, err = readLines(r, path, line, limit, max)
	} else {
		b, err = readAll(r, size, path, max)
	}
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", fsError(rpcpeer.CodeInvalidParams, path, fmt.Sprintf("%s is not valid UTF-8 text (first invalid byte at offset %d of what was asked for): "+
			"actctl serves text unaltered or not at all", path, invalidAt(b)))
	}
	if n := jsonLen(b); n > max {
		return "", fsError(rpcpeer.CodeInvalidParams, path, fmt.Sprintf("%s: the text asked for takes %d bytes escaped for JSON, more than the %d bytes one read may return: "+
			"ask for fewer lines with line and limit", path, n, max))
	}
	return string(b), nil
}

// jsonLen bounds the length of b as a JSON string's content, escaped as
// encoding/json escapes it (control characters and <, >, & as \u00XX,
// U+2028 and U+2029 as \u2028 and \u2029): the answer must fit in the
// line an agent reads (the Go SDK's is 10 MiB), not only the text.
func jsonLen(b []byte) int64 {
	var n int64
	for _, c := range b {
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n += 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			n += 6
		case c == 0xE2: // may start U+2028 or U+2029: 3 bytes become 6
			n += 4
		default:
			n++
		}
	}
	return n
}

// ranged reports whether line and limit ask for less than the whole file.
func ranged(line, limit *int) bool {
	return line != nil && *line > 1 || limit != nil && *limit >= 0
}

// readAll reads a whole file of size bytes, refused over max (also when
// it grew past max since its size was taken).
func readAll(r io.Reader, size int64, path string, max int64) ([]byte, error) {
	if size > max {
		return nil, tooBig(path, size, max)
	}
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, tooBig(path, -1, max)
	}
	return b, nil
}

func tooBig(path string, size, max int64) error {
	what := "over"
	if size >= 0 {
		what = fmt.Sprintf("%d bytes,", size)
	}
	return fsError(rpcpeer.CodeInvalidParams, path, fmt.Sprintf("%s is %s more than the %d bytes one read may return: "+
		"ask for part of it with line and limit", path, what, max))
}

// readLines returns limit lines (all when limit is nil or negative) from
// the 1-based line: the lines before it are skipped in the buffer,
// never kept; what is returned may not exceed max.
func readLines(r io.Reader, path string, line, limit *int, max int64) ([]byte, error) {
	br := bufio.NewReaderSize(r, readBuffer)
	if line != nil {
		for n := 1; n < *line; n++ {
			if err := skipLine(br); err == io.EOF {
				return nil, nil
			} else if err != nil {
				return nil, err
			}
		}
	}
	var out bytes.Buffer
	for n := 0; limit == nil || *limit < 0 || n < *limit; n++ {
		more, err := copyLine(&out, br, max)
		if err != nil {
			return nil, err
		}
		if int64(out.Len()) > max {
			return nil, fsError(rpcpeer.CodeInvalidParams, path, fmt.Sprintf("%s: the lines asked for are more than the %d bytes one read may return: ask for fewer with limit", path, max))
		}
		if !more {
			break
		}
	}
	return out.Bytes(), nil
}

// skipLine reads past the next newline (or to the end).
func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

// copyLine appends the next line to out, stopping once out holds more
// than max; more is false at the end of the input.
func copyLine(out *bytes.Buffer, br *bufio.Reader, max int64) (more bool, err error) {
	for {
		s, err := br.ReadSlice('\n')
		out.Write(s)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if int64(out.Len()) > max {
				return true, nil
			}
		case err == io.EOF:
			return false, nil
		case err != nil:
			return false, err
		default:
			return true, nil
		}
	}
}

// invalidAt is the offset of the first byte of b that is not UTF-8.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}
