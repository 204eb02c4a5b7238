package dashboard

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/actctl/actctl/tasklog"
)

// Bounds of an agent's process output (its stderr log) on its page.
const (
	// StderrTail is how much of the end of the log the page shows.
	StderrTail = 16 << 10
	// StderrLine bounds one line (cut as an entry's data is).
	StderrLine = 1 << 10
)

// stderrTail is the last lines of the log at path (at most StderrTail
// bytes, whole lines) and the size it read up to: the live stream goes
// on from there.
func stderrTail(path string) (lines []string, size int64) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0
	}
	size = fi.Size()
	from := max(0, size-StderrTail)
	b, err := io.ReadAll(io.NewSectionReader(f, from, size-from))
	if err != nil {
		return nil, 0
	}
	start := from
	if from > 0 { // the first line began before what was read: it goes
		j := bytes.IndexByte(b, '\n')
		if j < 0 {
			return nil, size // one line longer than the tail: from its end on
		}
		b, start = b[j+1:], from+int64(j+1)
	}
	// Whole lines only: a last one without its newline yet comes live.
	i := bytes.LastIndexByte(b, '\n')
	b, size = b[:i+1], start+int64(i+1)
	for l := range strings.Lines(string(b)) {
		lines = append(lines, cut(strings.TrimSuffix(l, "\n"), StderrLine))
	}
	return lines, size
}

// serveStderrLive streams an agent's stderr log as it grows (GET
// /agents/NAME/stderr/live?from=OFFSET): each line a server-sent event
// "line" (a JSON string, cut at StderrLine), bounded per client as the
// other live connections, waiting on file notifications (no timer).
func (s *Server) serveStderrLive(w http.ResponseWriter, r *http.Request) {
	path, err := s.src.StderrPath(r.PathValue("name"))
	if err != nil {
		http.Error(w, "dashboard: "+err.Error(), http.StatusNotFound)
		return
	}
	from, err := strconv.ParseInt(r.URL.Query().Get("from"), 10, 64)
	if err != nil || from < 0 {
		http.Error(w, "dashboard: from is a byte offset", http.StatusBadRequest)
		return
	}
	fl, release, ok := s.openStream(w, r)
	if !ok {
		return
	}
	defer release()
	_ = tasklog.Follow(r.Context(), path, from, func(line []byte) {
		fmt.Fprintf(w, "event: line\ndata: %s\n\n", mustJSON(cut(string(line), StderrLine)))
		fl.Flush()
	})
}
