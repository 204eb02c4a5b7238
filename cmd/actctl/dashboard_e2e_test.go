//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/launch"
)

// noRedirect is an HTTP client that shows redirects instead of
// following them.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func uiPath(root string) string { return filepath.Join(root, ".actant", "run", "ui.json") }

// TestUpDashboard: up serves the dashboard on a free loopback port with a
// token of its own, records it in ui.json (0600) which `actctl
// dashboard` prints, answers 401 without the token, trades it for a
// cookie, shows the agents, and removes ui.json when it stops.
func TestUpDashboard(t *testing.T) {
	root, home := upWorkspace(t)
	p := startUp(t, root, home)
	u := p.waitLine(`up: dashboard (http://127\.0\.0\.1:\d+/\?token=[0-9a-f]{64})$`)[1]
	for range 2 {
		p.waitLine(`up: (api|triage): process:start pid`)
	}
	fi, err := os.Lstat(uiPath(root))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("ui.json: %v %v", fi, err)
	}
	if r := actctl(t, root, home, "dashboard", "--print"); r.Code != 0 || r.Stdout != u+"\n" {
		t.Fatalf("dashboard --print: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
	r := actctl(t, root, home, "dashboard", "-o", "json")
	var out dashboardJSON
	if err := json.Unmarshal([]byte(r.Stdout), &out); r.Code != 0 || err != nil || out.URL != u || out.Pid != p.cmd.Process.Pid || out.Opened {
		t.Fatalf("dashboard -o json: %d %s %s", r.Code, r.Stdout, r.Stderr)
	}
	checkJSONOutput(t, "dashboard", r.Stdout)
	// Without a display nothing opens: the URL is printed.
	if r := actctlEnv(t, root, home, []string{"DISPLAY=", "WAYLAND_DISPLAY="}, "dashboard"); r.Code != 0 || r.Stdout != u+"\n" {
		t.Fatalf("dashboard without a browser: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}

	pu, _ := url.Parse(u)
	base := "http://" + pu.Host
	res, err := http.Get(base + "/")
	if err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without the token: %v %v", res, err)
	}
	res.Body.Close()
	res, err = noRedirect.Get(u)
	if err != nil || res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("token exchange: %v %v", res, err)
	}
	res.Body.Close()
	cookies := res.Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly {
		t.Fatalf("cookies %v", cookies)
	}
	req, _ := http.NewRequest("GET", base+"/", nil)
	req.AddCookie(cookies[0])
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`data-name="api"`, `data-name="triage"`, ">running<", ">scripted<"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("agents page lacks %s:\n%s", want, body)
		}
	}
	// helper, a tool agent, is held on demand (issue #35 item 7).
	if !strings.Contains(string(body), `data-name="helper" data-state="on demand"`) {
		t.Errorf("helper (a tool agent, on demand) has no card of its state")
	}
	// An employee's page: describe's text, its files, schedule and ticks.
	req, _ = http.NewRequest("GET", base+"/agents/triage", nil)
	req.AddCookie(cookies[0])
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{"Resolved:", "FIELD", "SCRIPTED.md", "heartbeat every 1h0m0s", `<time class="viewer"`, `sandbox="allow-scripts"`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("triage's page lacks %s:\n%s", want, body)
		}
	}

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("up: %v\n%s", err, p.stderr())
	}
	if _, err := os.Lstat(uiPath(root)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ui.json left: %v", err)
	}
	if r := actctl(t, root, home, "dashboard"); r.Code != 1 || !strings.Contains(r.Stderr, upNoUp) {
		t.Fatalf("dashboard without up: %d %s", r.Code, r.Stderr)
	}
}

// TestUpDashboardFlags: --ui off serves none (and `actctl dashboard` says
// so); a non-loopback --ui without --ui-allow-remote, or a malformed one,
// is refused before anything runs or is written.
func TestUpDashboardFlags(t *testing.T) {
	root, home := upWorkspace(t)
	for _, tc := range []struct{ arg, want string }{
		{"0.0.0.0:0", "up: --ui 0.0.0.0:0 is not a loopback address: other machines could reach the dashboard; add --ui-allow-remote to mean it (the token is then the only guard)"},
		{"8080", `up: --ui "8080": want HOST:PORT (127.0.0.1:0) or off`},
	} {
		r := actctl(t, root, home, "up", "--ui", tc.arg)
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.want) {
			t.Fatalf("up --ui %s: %d %s", tc.arg, r.Code, r.Stderr)
		}
		if _, err := os.Lstat(filepath.Join(root, ".actant")); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("up --ui %s wrote .actant: %v", tc.arg, err)
		}
	}
	// A port taken: up says so and starts nothing.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	r := actctl(t, root, home, "up", "--ui", taken.Addr().String())
	if r.Code != 1 || !strings.Contains(r.Stderr, "up: dashboard: listen tcp "+taken.Addr().String()) || strings.Contains(r.Stderr, "process:start") {
		t.Fatalf("up --ui on a taken port: %d %s", r.Code, r.Stderr)
	}
	for _, name := range []string{"ui.json", "up.sock"} {
		if _, err := os.Lstat(filepath.Join(root, ".actant", "run", name)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("up --ui on a taken port left %s: %v", name, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(home, "instances", "api")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("up --ui on a taken port applied the config: %v", err)
	}
	// The record a killed up left is not taken for this one's.
	if _, err := control.WriteUI(root, control.UI{URL: "http://127.0.0.1:1/?token=stale", Pid: 1}); err != nil {
		t.Fatal(err)
	}
	p := startUp(t, root, home, "--ui", "off")
	p.waitLine(`up: control socket`)
	if _, err := os.Lstat(uiPath(root)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("up --ui off kept or wrote ui.json: %v", err)
	}
	if r := actctl(t, root, home, "dashboard"); r.Code != 1 || !strings.Contains(r.Stderr, "serves no dashboard (it was started with --ui off): stop it and start `actctl up` without --ui off") {
		t.Fatalf("dashboard with --ui off: %d %s", r.Code, r.Stderr)
	}
	if strings.Contains(p.stderr(), "dashboard") {
		t.Fatalf("--ui off printed a dashboard:\n%s", p.stderr())
	}
	// A record written while this up runs, not by it (a committed one, a
	// checkout), is not opened: neither another pid's nor one naming this
	// up's pid without its start time.
	forged := []control.UI{{URL: "http://127.0.0.1:1/?token=forged", Pid: p.cmd.Process.Pid + 1}}
	if start, err := launch.StartTime(p.cmd.Process.Pid); err == nil {
		forged = append(forged, control.UI{URL: "http://127.0.0.1:1/?token=forged", Pid: p.cmd.Process.Pid, Start: start + 1})
	}
	for _, ui := range forged {
		if _, err := control.WriteUI(root, ui); err != nil {
			t.Fatal(err)
		}
		r := actctl(t, root, home, "dashboard", "--print")
		if r.Code != 1 || strings.Contains(r.Stdout+r.Stderr, "forged") || !strings.Contains(r.Stderr, "serves no dashboard (it was started with --ui off)") ||
			!strings.Contains(r.Stderr, "ui.json was not written by it, pid "+strconv.Itoa(p.cmd.Process.Pid)) {
			t.Fatalf("dashboard with a forged ui.json %+v: %d %q %s", ui, r.Code, r.Stdout, r.Stderr)
		}
	}
}
