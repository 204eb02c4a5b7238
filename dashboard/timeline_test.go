package dashboard

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/hooks"
)

// timelineServer is a Server whose timeline is kept in the file at path.
func timelineServer(t *testing.T, path string) *Server {
	t.Helper()
	s, err := New(newFake(), Options{Token: testToken, Addr: testAddr, Timeline: path, Logf: func(f string, a ...any) { t.Errorf(f, a...) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestTimelineAcrossRuns: a run of up reads the timeline the last one
// left (events, hook runs under their event, numbers going on), and the
// page shows it; before, each run started empty (issue #35 item 13).
func TestTimelineAcrossRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timeline.jsonl")
	at := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	ev := hooks.Event{Name: "process:crash", Agent: "api", Time: at, Data: map[string]any{"task": 7}}
	s1 := timelineServer(t, path)
	s1.Observe(hooks.Observation{Event: ev})
	s1.Observe(hooks.Observation{Event: ev, Hook: &hooks.Result{Hook: "page-oncall", Err: errors.New("exit 1")}})
	want := s1.live.timeline()
	if err := s1.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := timelineServer(t, path)
	got := s2.live.timeline()
	if len(got) != 2 || got[0].Event != "process:crash" || got[0].Task != 7 || got[1].Hook != "page-oncall" ||
		got[1].Of != got[0].Seq || got[1].Outcome != "failed: exit 1" || !got[0].Time.Equal(at) {
		t.Fatalf("restored %+v, want %+v", got, want)
	}
	s2.Observe(hooks.Observation{Event: hooks.Event{Name: "actctl:start", Time: at.Add(time.Minute)}})
	if s2.live.seq != want[1].Seq+1 {
		t.Fatalf("numbering after a restore: %d after %d", s2.live.seq, want[1].Seq)
	}
	w := serve(s2, request("GET", "/events", ""))
	if body := w.Body.String(); !strings.Contains(body, "page-oncall") || !strings.Contains(body, "actctl:start") {
		t.Fatalf("the events page after a restart:\n%s", body)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the timeline's file: %v %v", fi, err)
	}
}

// TestTimelineFileBounded: across runs the timeline keeps its bounds
// (TimelineMax entries of at most TimelineBytes) and its file stays
// under twice TimelineBytes plus a line, however many entries came;
// a cut or foreign line is skipped, not fatal.
func TestTimelineFileBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timeline.jsonl")
	payload := strings.Repeat("x", DataMax)
	n := 0
	for run := range 3 {
		s := timelineServer(t, path)
		for range 1500 {
			n++
			s.Observe(hooks.Observation{Event: hooks.Event{Name: fmt.Sprintf("e%d", n), Data: map[string]any{"p": payload}}})
			if fi, err := os.Stat(path); err != nil || fi.Size() > 2*TimelineBytes+2*DataMax {
				t.Fatalf("run %d entry %d: the file is %d bytes (%v)", run, n, fi.Size(), err)
			}
		}
		s.Close()
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		// A line too long to be one of ours, then a crash mid-line.
		f.WriteString(`{"seq":99999998,"event":"` + strings.Repeat("y", 2*timelineLineMax) + "\"}\n")
		f.WriteString(`{"seq":99999999,"event":"cut`)
		f.Close()
	}
	s := timelineServer(t, path)
	tl := s.live.timeline()
	if len(tl) == 0 || len(tl) > TimelineMax || s.live.bytes > TimelineBytes || tl[len(tl)-1].Event != fmt.Sprintf("e%d", n) {
		t.Fatalf("restored %d entries of %d bytes, last %q", len(tl), s.live.bytes, tl[len(tl)-1].Event)
	}
}
