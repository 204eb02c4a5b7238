package tasklog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actctl/actctl/model"
)

func TestDir(t *testing.T) {
	for _, tc := range []struct {
		workspace, dir, name, want string
	}{
		{model.WorkspaceInstance, "/home/u/.actant/instances/triage", "triage", "/home/u/.actant/instances/triage/logs"},
		{model.WorkspaceProject, "/src/proj", "reviewer", "/src/proj/.actant/logs/reviewer"},
		{model.WorkspaceProject, "/src/proj/sub", "a.b", "/src/proj/sub/.actant/logs/a.b"},
		{model.WorkspaceProject, "/src/proj", "x.log", "/src/proj/.actant/logs/_x.log"},
		{model.WorkspaceInstance, "/home/u/.actant/instances/x.log", "x.log", "/home/u/.actant/instances/x.log/logs"},
	} {
		r := &model.Resolved{Name: tc.name, Dir: tc.dir, Archetype: model.Archetype{Workspace: tc.workspace}}
		if got := Dir(r); got != filepath.FromSlash(tc.want) {
			t.Errorf("Dir(%s %s) = %s, want %s", tc.workspace, tc.name, got, tc.want)
		}
	}
}

func TestNames(t *testing.T) {
	paris, _ := time.LoadLocation("Europe/Paris")
	for _, tc := range []struct {
		start time.Time
		id    uint64
		want  string
	}{
		{time.Date(2026, 11, 22, 9, 5, 3, 999, time.UTC), 1, "20261122T090503Z-1.jsonl"},
		{time.Date(2026, 11, 22, 10, 5, 3, 0, paris), 42, "20261122T090503Z-42.jsonl"},
		{time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), 18446744073709551615, "20260102T000000Z-18446744073709551615.jsonl"},
	} {
		got := fileName(tc.start, tc.id)
		if got != tc.want {
			t.Errorf("fileName(%v, %d) = %s, want %s", tc.start, tc.id, got, tc.want)
		}
		if id, ok := parseName(got); !ok || id != tc.id {
			t.Errorf("parseName(%s) = %d, %v", got, id, ok)
		}
	}
	for _, bad := range []string{
		"20261122T090503Z-1.json", "20261122T090503Z-.jsonl", "20261122T090503Z-01.jsonl",
		"20261122T090503Z-x.jsonl", "2026-1.jsonl", "20261122T090503Z.jsonl", "20261122T090503Z--1.jsonl", "notes.txt",
	} {
		if id, ok := parseName(bad); ok {
			t.Errorf("parseName(%s) = %d, accepted", bad, id)
		}
	}
}

func TestFirstRunes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""}, {"abc", 3, "abc"}, {"abcd", 3, "abc"}, {"héllo", 2, "hé"}, {"日本語です", 3, "日本語"},
	} {
		if got := firstRunes(tc.s, tc.n); got != tc.want {
			t.Errorf("firstRunes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestFinishLine: the task file holds exactly the messages, one a line,
// and the summary is one exact JSON line.
func TestFinishLine(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	w, err := Begin(dir, Task{ID: 7, Kind: "cron", Source: "cron[0]", Prompt: "Post <the> standup & more\n" + strings.Repeat("é", 300), Started: start})
	if err != nil {
		t.Fatal(err)
	}
	w.Message([]byte(`{"jsonrpc":"2.0","method":"session/update"}`))
	w.Message([]byte("{\"id\":1,\"result\":{}}\r\n"))
	end := start.Add(1500 * time.Millisecond).In(time.FixedZone("X", 3600))
	if err := w.Finish(Summary{Time: end, StopReason: "end_turn", Error: "boom"}); err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, w.Path()), "{\"jsonrpc\":\"2.0\",\"method\":\"session/update\"}\n{\"id\":1,\"result\":{}}\n"; got != want {
		t.Errorf("task file:\n%q\nwant\n%q", got, want)
	}
	want := `{"time":"2026-11-22T09:00:01.5Z","started":"2026-11-22T09:00:00Z","task":7,"kind":"cron","source":"cron[0]","stopReason":"end_turn","durationMs":1500,"error":"boom","log":"tasks/20261122T090000Z-7.jsonl","prompt":"Post <the> standup & more\n` + strings.Repeat("é", 200-26) + `"}` + "\n"
	if got := read(t, filepath.Join(dir, "actctl.log")); got != want {
		t.Errorf("actctl.log:\n%s\nwant\n%s", got, want)
	}
	if fi, _ := os.Stat(w.Path()); fi.Mode().Perm() != 0o644 {
		t.Errorf("task file mode %v", fi.Mode())
	}
	if err := w.Finish(Summary{}); err == nil || !strings.Contains(err.Error(), "finished twice") {
		t.Errorf("second Finish: %v", err)
	}
	// The same id and second again is refused.
	if _, err := Begin(dir, Task{ID: 7, Started: start}); err == nil {
		t.Errorf("Begin over an existing task file succeeded")
	}
	// No error field without an error; the duration from the start.
	w, err = Begin(dir, Task{ID: 8, Kind: "heartbeat", Source: "heartbeat", Started: start})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(Summary{Time: start.Add(2 * time.Second), StopReason: "cancelled"}); err != nil {
		t.Fatal(err)
	}
	want += `{"time":"2026-11-22T09:00:02Z","started":"2026-11-22T09:00:00Z","task":8,"kind":"heartbeat","source":"heartbeat","stopReason":"cancelled","durationMs":2000,"log":"tasks/20261122T090000Z-8.jsonl","prompt":""}` + "\n"
	if got := read(t, filepath.Join(dir, "actctl.log")); got != want {
		t.Errorf("actctl.log:\n%s\nwant\n%s", got, want)
	}
}

// TestSummaryOldLine: a summary line written before lines held their
// start (`up` wrote the task's start as its time, no started) reads as
// the start and the end it meant: time = started + durationMs; a line of
// today's reads as written (issue #22 item 16).
func TestSummaryOldLine(t *testing.T) {
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ line, started, end string }{
		{`{"time":"2026-11-22T09:00:00Z","task":3,"kind":"prompt","source":"cli","stopReason":"end_turn","durationMs":1500,"log":"tasks/20261122T090000Z-3.jsonl","prompt":"hi"}`,
			"2026-11-22T09:00:00Z", "2026-11-22T09:00:01.5Z"},
		{`{"time":"2026-11-22T09:00:02Z","started":"2026-11-22T09:00:00Z","task":3,"kind":"prompt","source":"cli","stopReason":"end_turn","durationMs":2000,"log":"tasks/20261122T090000Z-3.jsonl","prompt":"hi"}`,
			"2026-11-22T09:00:00Z", "2026-11-22T09:00:02Z"},
	} {
		s, err := ParseSummary([]byte(tc.line))
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Started.Format(time.RFC3339Nano); got != tc.started || !s.Started.Equal(start) {
			t.Errorf("%s: started %s, want %s", tc.line, got, tc.started)
		}
		if got := s.Time.Format(time.RFC3339Nano); got != tc.end {
			t.Errorf("%s: time %s, want %s", tc.line, got, tc.end)
		}
	}
}

// TestConcurrentWriters: messages of one task written from many goroutines
// and summaries of many tasks finished at once each stay whole lines.
func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	const tasks, writers, msgs = 8, 8, 200
	var wg sync.WaitGroup
	ws := make([]*Writer, tasks)
	for i := range ws {
		w, err := Begin(dir, Task{ID: uint64(i + 1), Kind: "prompt", Prompt: strings.Repeat("p", 5000), Started: start})
		if err != nil {
			t.Fatal(err)
		}
		ws[i] = w
		for g := range writers {
			wg.Go(func() {
				for m := range msgs {
					w.Message(fmt.Appendf(nil, `{"w":%d,"m":%d,"pad":"%s"}`, g, m, strings.Repeat("x", 3000)))
				}
			})
		}
	}
	wg.Wait()
	for _, w := range ws {
		wg.Go(func() {
			if err := w.Finish(Summary{StopReason: "end_turn", DurationMs: 1}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	for _, w := range ws {
		lines := strings.Split(strings.TrimSuffix(read(t, w.Path()), "\n"), "\n")
		seen := map[[2]int]bool{}
		for _, l := range lines {
			var g, m int
			if _, err := fmt.Sscanf(l, `{"w":%d,"m":%d,`, &g, &m); err != nil || !strings.HasSuffix(l, `x"}`) || len(l) < 3000 {
				t.Fatalf("%s: broken line %.80q", w.Path(), l)
			}
			seen[[2]int{g, m}] = true
		}
		if len(lines) != writers*msgs || len(seen) != writers*msgs {
			t.Errorf("%s: %d lines, %d distinct, want %d", w.Path(), len(lines), len(seen), writers*msgs)
		}
	}
	ss, err := Summaries(dir)
	if err != nil || len(ss) != tasks {
		t.Fatalf("Summaries: %d, %v", len(ss), err)
	}
	ids := map[uint64]bool{}
	for _, s := range ss {
		ids[s.Task] = true
	}
	if len(ids) != tasks {
		t.Errorf("summary ids %v", ids)
	}
}

func TestSummaries(t *testing.T) {
	dir := t.TempDir()
	if ss, err := Summaries(dir); err != nil || ss != nil {
		t.Fatalf("no log: %v, %v", ss, err)
	}
	writeFile(t, filepath.Join(dir, "actctl.log"), `{"task":1,"kind":"heartbeat","stopReason":"end_turn"}`+"\n\n"+
		"not json\n"+
		`{"task":"two"}`+"\n"+
		`{"task":3,"kind":"cron","future":"field"}`+"\n"+
		`{"task":4`)
	ss, err := Summaries(dir)
	if len(ss) != 2 || ss[0].Task != 1 || ss[0].StopReason != "end_turn" || ss[1].Task != 3 {
		t.Errorf("summaries: %+v", ss)
	}
	p := filepath.Join(dir, "actctl.log")
	if err == nil || !strings.Contains(err.Error(), p+":3: malformed task summary") || !strings.Contains(err.Error(), p+":4: malformed task summary") {
		t.Errorf("error: %v", err)
	}
	if strings.Contains(fmt.Sprint(err), ":6:") {
		t.Errorf("the unfinished last line is an error: %v", err)
	}
}

func TestTaskFile(t *testing.T) {
	dir := t.TempDir()
	if _, err := TaskFile(dir, 3); err == nil || !strings.Contains(err.Error(), "no task 3 in "+filepath.Join(dir, "tasks")+": no tasks logged yet") {
		t.Errorf("no tasks: %v", err)
	}
	for _, n := range []string{"20261122T090000Z-2.jsonl", "20261122T100000Z-5.jsonl", "20261123T080000Z-2.jsonl", "notes.txt", "20261122T090000Z-9.json"} {
		writeFile(t, filepath.Join(dir, "tasks", n), "")
	}
	got, err := TaskFile(dir, 2)
	if want := filepath.Join(dir, "tasks", "20261123T080000Z-2.jsonl"); err != nil || got != want {
		t.Errorf("TaskFile 2 = %s, %v; want the latest, %s", got, err, want)
	}
	if _, err := TaskFile(dir, 9); err == nil || !strings.HasSuffix(err.Error(), "(logged: tasks 2 to 5)") {
		t.Errorf("unknown id: %v", err)
	}
	if last, err := LastID(dir); err != nil || last != 5 {
		t.Errorf("LastID = %d, %v; want 5", last, err)
	}
	if last, err := LastID(t.TempDir()); err != nil || last != 0 {
		t.Errorf("LastID of no logs = %d, %v; want 0", last, err)
	}
	os.Remove(filepath.Join(dir, "tasks", "20261122T100000Z-5.jsonl"))
	if _, err := TaskFile(dir, 9); err == nil || !strings.HasSuffix(err.Error(), "(logged: task 2)") {
		t.Errorf("unknown id: %v", err)
	}
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLogsNotThroughLinks: a task log is never written through a link a
// checkout may bring: .actant/logs linked elsewhere refuses the task, and
// an actctl.log linked to another file is not appended to.
func TestLogsNotThroughLinks(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	victim := filepath.Join(elsewhere, "victim")
	if err := os.WriteFile(victim, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, ".actant"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(root, ".actant", "logs")); err != nil {
		t.Fatal(err)
	}
	if _, err := Begin(filepath.Join(root, ".actant", "logs", "a"), Task{ID: 1, Kind: "prompt"}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Begin under a linked .actant/logs: %v", err)
	}
	dir := filepath.Join(t.TempDir(), ".actant", "logs", "a")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, SummaryPath(dir)); err != nil {
		t.Fatal(err)
	}
	w, err := Begin(dir, Task{ID: 2, Kind: "prompt"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(Summary{}); err == nil {
		t.Error("summary appended through a link")
	}
	if b, _ := os.ReadFile(victim); string(b) != "mine\n" || len(mustList(t, elsewhere)) != 1 {
		t.Errorf("written elsewhere: %q %v", b, mustList(t, elsewhere))
	}
}

// mustList is the names in dir.
func mustList(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
