package dashboard

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestStderr: an agent's page shows the end of its stderr log (whole
// lines, escaped, at most StderrTail bytes), and the live stream goes on
// from where the page ends: the line the page did not have whole, then
// each line appended. (issue #35 item 11)
func TestStderr(t *testing.T) {
	f := newFake(testAgents()...)
	p := filepath.Join(t.TempDir(), "bot.log")
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "line %d <b>x</b>\n", i)
	}
	b.WriteString("half")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	f.stderr = map[string]string{"bot": p}
	s, ts := liveServer(t, f, 0)
	get := func(path string) *httptest.ResponseRecorder { return getLive(s, ts, path) }
	page := get("/agents/bot").Body.String()
	box := page[strings.Index(page, `<div class="log stderr"`):]
	box = box[:strings.Index(box, "</div>\n")]
	m := regexp.MustCompile(`data-from="(\d+)"`).FindStringSubmatch(box)
	if m == nil || !strings.Contains(box, "<div>line 999 &lt;b&gt;x&lt;/b&gt;</div>") || strings.Contains(box, "half") ||
		strings.Contains(box, "<b>") || len(box) > 4*StderrTail || strings.Contains(box, "line 0 ") {
		t.Fatalf("the page's stderr:\n%s", box[:min(len(box), 400)])
	}
	if first := regexp.MustCompile(`<div>(.*?)</div>`).FindStringSubmatch(box[strings.Index(box, ">")+1:]); !strings.HasPrefix(first[1], "line ") {
		t.Errorf("the first line shown is cut: %q", first[1])
	}
	if from, _ := strconv.Atoi(m[1]); from != b.Len()-len("half") {
		t.Errorf("data-from %d, want %d (before the unfinished line)", from, b.Len()-len("half"))
	}
	req, _ := http.NewRequest("GET", ts.URL+"/agents/bot/stderr/live?from="+m[1], nil)
	req.AddCookie(liveCookie(ts))
	res, err := ts.Client().Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("stderr live: %v %v", res, err)
	}
	defer res.Body.Close()
	fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(" done\npanic: <boom>\n")
	fh.Close()
	sc := bufio.NewScanner(res.Body)
	if l := nextEvent(t, sc, "line"); l != `"half done"` {
		t.Fatalf("first live line %s", l)
	}
	if l := nextEvent(t, sc, "line"); l != `"panic: \u003cboom\u003e"` {
		t.Fatalf("second live line %s", l)
	}
	for path, want := range map[string]int{"/agents/svc/stderr/live?from=0": 404, "/agents/bot/stderr/live?from=-1": 400, "/agents/bot/stderr/live": 400} {
		if w := get(path); w.Code != want {
			t.Errorf("%s: %d, want %d", path, w.Code, want)
		}
	}
}
