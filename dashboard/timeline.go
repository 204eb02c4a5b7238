package dashboard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/internal/layout"
)

// The timeline kept across runs of up (docs/dashboard.md, "Events"): the
// entries are appended to a file, one JSON line each, as they come; a new
// run reads it back within the timeline's bounds (TimelineMax entries of
// at most TimelineBytes), rewrites it with what it kept and appends from
// there. The file is rewritten whenever it holds twice the bound, so it
// stays under 2*TimelineBytes plus one line. It lies in this machine's
// actctl home, never in the workspace (up's caller names it).

// timelineLineMax bounds a line read back: an entry's data and outcome
// are cut at DataMax, so a longer line is not one this code wrote.
const timelineLineMax = 64 << 10

// timelineFile is the file the timeline is appended to.
type timelineFile struct {
	path    string
	f       *os.File
	written int // bytes in the file
}

// readTimeline returns the entries of the file at path, oldest first, in
// the order they were added; a missing file is none. Lines that do not
// parse (a line cut by a crash, one too long) are skipped.
func readTimeline(path string) ([]Entry, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|layout.NoFollow, 0)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("dashboard: timeline: %w", err)
	}
	defer f.Close()
	var out []Entry
	br := bufio.NewReaderSize(io.LimitReader(f, 4*TimelineBytes), timelineLineMax)
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			skipLine(br)
			continue
		}
		var e Entry
		if json.Unmarshal(bytes.TrimSpace(line), &e) == nil && e.Seq > 0 {
			out = append(out, e)
		}
		if err != nil {
			return out, nil
		}
	}
}

// skipLine reads br to the end of its line.
func skipLine(br *bufio.Reader) {
	for {
		if _, err := br.ReadSlice('\n'); err != bufio.ErrBufferFull {
			return
		}
	}
}

// rewrite replaces the file with entries, then appends from its end.
func (t *timelineFile) rewrite(entries []Entry) error {
	var b bytes.Buffer
	for _, e := range entries {
		line, _ := json.Marshal(e)
		b.Write(line)
		b.WriteByte('\n')
	}
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
	if err := atomicfile.WriteWith(t.path, b.Bytes(), atomicfile.Options{Perm: 0o600, ExactPerm: true}); err != nil {
		return fmt.Errorf("dashboard: timeline: %w", err)
	}
	f, err := os.OpenFile(t.path, os.O_WRONLY|os.O_APPEND|layout.NoFollow, 0)
	if err != nil {
		return fmt.Errorf("dashboard: timeline: %w", err)
	}
	t.f, t.written = f, b.Len()
	return nil
}

// append adds e's line; past twice the bound the file is rewritten with
// kept, the entries the timeline holds.
func (t *timelineFile) append(e Entry, kept []Entry) error {
	if t.written > 2*TimelineBytes {
		return t.rewrite(kept)
	}
	line, _ := json.Marshal(e)
	line = append(line, '\n')
	n, err := t.f.Write(line)
	t.written += n
	if err != nil {
		return fmt.Errorf("dashboard: timeline: %w", err)
	}
	return nil
}

// close closes the file.
func (t *timelineFile) close() error {
	if t == nil || t.f == nil {
		return nil
	}
	return t.f.Close()
}
