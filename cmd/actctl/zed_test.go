package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/zed"
)

// zedEntries runs `actctl zed` and returns its entries.
func zedEntries(t *testing.T, dir, home string, args ...string) map[string]zed.Entry {
	t.Helper()
	r := actctl(t, dir, home, append([]string{"zed"}, args...)...)
	var out struct {
		AgentServers map[string]zed.Entry `json:"agent_servers"`
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil {
		t.Fatalf("zed %v: exit %d\n%s%s", args, r.Code, r.Stdout, r.Stderr)
	}
	return out.AgentServers
}

// TestZedEntryKeepsHome: the entry zed prints, started the way Zed starts
// it (another directory, another ACTANT_HOME in its environment), serves
// the agent from the home zed was run with, and touches no other home.
func TestZedEntryKeepsHome(t *testing.T) {
	root, home, out := proxyWorkspace(t)
	e := zedEntries(t, root, home)["builder"]
	if e.Command != actctlBin && !strings.HasSuffix(e.Command, "/actctl") {
		t.Fatalf("entry command %q", e.Command)
	}
	decoy := filepath.Join(t.TempDir(), "decoy")
	c := startActctl(t, t.TempDir(), decoy, e.Args...)
	c.initialize()
	c.close()
	if got := agentLog(t, out); got[0] != "process "+filepath.Join(home, "instances", "builder") {
		t.Errorf("backend ran as %v, want in %s", got, home)
	}
	if _, err := os.Stat(decoy); err == nil {
		t.Errorf("the proxy wrote into the environment's home %s", decoy)
	}
}

// TestZedListsDeclaredOnly: per-project copies and -t agents made by proxy
// get no entry (picking one elsewhere would copy the copy); -t TEMPLATE adds
// an entry that creates an agent from the template.
func TestZedListsDeclaredOnly(t *testing.T) {
	root, home, _ := proxyWorkspace(t)
	project := t.TempDir()
	for _, args := range [][]string{{"helper", "-C", root}, {"scratch", "-t", "tool", "-C", root}} {
		c := startProxy(t, project, home, args...)
		c.initialize()
		c.close()
	}
	if r := actctl(t, root, home, "-o", "json", "get", "agents"); !strings.Contains(r.Stdout, `"helper-p`) || !strings.Contains(r.Stdout, `"scratch"`) {
		t.Fatalf("proxy made no copies; the test proves nothing:\n%s", r.Stdout)
	}
	got := zedEntries(t, root, home, "-t", "tool")
	if want := "builder,ghost,helper,server,tool,worker"; strings.Join(slices.Sorted(maps.Keys(got)), ",") != want {
		t.Errorf("zed lists %v, want %s", slices.Sorted(maps.Keys(got)), want)
	}
	if a := strings.Join(got["tool"].Args, " "); a != "proxy tool -t tool -C "+root+" --home "+home {
		t.Errorf("-t entry args %q", a)
	}
	r := actctl(t, root, home, "zed", "-t", "tol")
	if r.Code != 1 || !strings.Contains(r.Stderr, `unknown template "tol" (did you mean "tool"?)`) {
		t.Errorf("zed -t tol: exit %d %s", r.Code, r.Stderr)
	}
}

// TestZedWriteProvenance: --write replaces only the entries it wrote for
// this workspace; a user's entry, another workspace's or a hand-edited one
// is a conflict that writes nothing and suggests --prefix; entries of
// agents removed from the config are removed.
func TestZedWriteProvenance(t *testing.T) {
	dir, home := agentWorkspace(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	mine := "{\n  \"agent_servers\": {\n    \"helper\": {\"command\": \"my-own\"}, // mine\n  },\n}\n"
	writeFiles(t, filepath.Dir(settings), map[string]string{"settings.json": mine})
	refused := func(what string, r result, want ...string) {
		t.Helper()
		if r.Code != 1 {
			t.Errorf("%s: exit %d\n%s", what, r.Code, r.Stderr)
		}
		for _, w := range append(want, "nothing written", "--prefix") {
			if !strings.Contains(r.Stderr, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", what, w, r.Stderr)
			}
		}
	}
	before := string(mustRead(t, settings))
	refused("user's own entry", actctl(t, dir, home, "zed", "--write", "--settings", settings), "agent_servers.helper is not an entry actctl wrote")
	if string(mustRead(t, settings)) != before {
		t.Fatal("a refused --write changed the settings")
	}
	assertNotWritten(t, home, "refused --write", zed.RecordFile)

	if r := actctl(t, dir, home, "zed", "--write", "--prefix", "a-", "--settings", settings); r.Code != 0 {
		t.Fatalf("--prefix a-: %s", r.Stderr)
	}
	b := string(mustRead(t, settings))
	if !strings.Contains(b, `"helper": {"command": "my-own"},`) || !strings.Contains(b, "// mine") || !strings.Contains(b, `"a-helper"`) || !strings.Contains(b, `"a-worker"`) {
		t.Fatalf("settings after --prefix:\n%s", b)
	}

	// Another workspace with a same-named agent does not take the entry over.
	dir2, _ := agentWorkspace(t)
	refused("other workspace", actctl(t, dir2, home, "zed", "--write", "--prefix", "a-", "--settings", settings), "agent_servers.a-helper serves the workspace "+dir)
	// Nor does the same workspace run with another home (no record there).
	refused("other home", actctl(t, dir, t.TempDir(), "zed", "--write", "--prefix", "a-", "--settings", settings), "agent_servers.a-helper is not an entry actctl wrote")
	if string(mustRead(t, settings)) != b {
		t.Fatal("a refused --write changed the settings")
	}

	// A hand edit makes the entry the user's.
	at := strings.Index(b, `"a-worker"`)
	if at < 0 {
		t.Fatalf("no a-worker entry:\n%s", b)
	}
	edited := b[:at] + strings.Replace(b[at:], `"worker",`, `"worker", "--cwd", "/x",`, 1)
	if edited == b {
		t.Fatalf("cannot find the worker entry to edit:\n%s", b)
	}
	writeFiles(t, filepath.Dir(settings), map[string]string{"settings.json": edited})
	refused("hand-edited entry", actctl(t, dir, home, "zed", "--write", "--prefix", "a-", "--settings", settings), "agent_servers.a-worker was edited since actctl wrote it")
	writeFiles(t, filepath.Dir(settings), map[string]string{"settings.json": b})

	// An agent removed from the config loses its entry; the rest stay.
	cue := string(mustRead(t, filepath.Join(dir, "actant.cue")))
	writeFiles(t, dir, map[string]string{"actant.cue": strings.Replace(cue, "agents: worker: template: \"emp\"\n", "", 1)})
	if r := actctl(t, dir, home, "zed", "--write", "--prefix", "a-", "--settings", settings); r.Code != 0 || !strings.Contains(r.Stdout, "removed a-worker (no longer declared in") {
		t.Fatalf("--write after removing worker: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	b = string(mustRead(t, settings))
	if strings.Contains(b, "a-worker") || !strings.Contains(b, `"a-helper"`) || !strings.Contains(b, "my-own") {
		t.Errorf("settings after removing worker:\n%s", b)
	}
}

// TestProxyCopyOfCopy: a per-project copy asked for by name (as an entry
// an older zed wrote does) from another project serves a copy of the
// declared agent there, not a copy of the copy.
func TestProxyCopyOfCopy(t *testing.T) {
	root, home, out := proxyWorkspace(t)
	p1, p2 := t.TempDir(), t.TempDir()
	c := startProxy(t, p1, home, "helper", "-C", root)
	c.initialize()
	c.close()
	var copyName string
	for _, n := range agentNames(t, root, home) {
		if strings.HasPrefix(n, "helper-p") {
			copyName = n
		}
	}
	if copyName == "" {
		t.Fatal("no per-project copy made")
	}
	c = startProxy(t, p2, home, copyName, "-C", root)
	c.initialize()
	c.close()
	if got := agentLog(t, out); got[len(got)-1] != "process "+p2 {
		t.Errorf("backend ran as %v, want in %s", got, p2)
	}
	var copies []string
	for _, n := range agentNames(t, root, home) {
		if strings.HasPrefix(n, "helper-p") {
			copies = append(copies, n)
		}
		if strings.Count(n, "-p") > 1 {
			t.Errorf("a copy of a copy: %s", n)
		}
	}
	if len(copies) != 2 {
		t.Errorf("copies %v, want one per project", copies)
	}
}

// agentNames lists the workspace's agents (get agents -o json).
func agentNames(t *testing.T, root, home string) []string {
	t.Helper()
	r := actctl(t, root, home, "-o", "json", "get", "agents")
	var as []struct{ Name string }
	if err := json.Unmarshal([]byte(r.Stdout), &as); err != nil {
		t.Fatalf("get agents: %v\n%s%s", err, r.Stdout, r.Stderr)
	}
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}

func TestZedWrite(t *testing.T) {
	dir, home := agentWorkspace(t)
	settings := filepath.Join(t.TempDir(), "settings.json")
	orig := "// Zed settings\n{\n  \"theme\": \"One Dark\", // mine\n  \"agent_servers\": {\"other\": {\"command\": \"x\"}},\n}\n"
	writeFiles(t, filepath.Dir(settings), map[string]string{"settings.json": orig})
	r := actctl(t, dir, home, "zed", "--write", "--settings", settings)
	if r.Code != 0 {
		t.Fatalf("zed --write: %s", r.Stderr)
	}
	b := string(mustRead(t, settings))
	if !strings.HasPrefix(b, "// Zed settings\n{\n  \"theme\": \"One Dark\", // mine\n") || !strings.Contains(b, `"other": {"command": "x"}`) {
		t.Errorf("user settings not kept:\n%s", b)
	}
	for _, w := range []string{`"helper"`, `"worker"`, `"custom"`, `"proxy"`, dir} {
		if !strings.Contains(b, w) {
			t.Errorf("settings lack %s:\n%s", w, b)
		}
	}
	again := actctl(t, dir, home, "zed", "--write", "--settings", settings)
	if again.Code != 0 || string(mustRead(t, settings)) != b {
		t.Errorf("second zed --write changed the file")
	}
	printed := actctl(t, dir, home, "zed")
	var out struct {
		AgentServers map[string]zed.Entry `json:"agent_servers"`
	}
	if err := json.Unmarshal([]byte(printed.Stdout), &out); err != nil {
		t.Fatal(err)
	}
	e := out.AgentServers["helper"]
	if e.Type != "custom" || !filepath.IsAbs(e.Command) || strings.Join(e.Args, " ") != "proxy helper -C "+dir+" --home "+home {
		t.Errorf("entry = %+v", e)
	}
}

// TestZedLease: --lease makes service agents' entries lease sessions on
// up's warm agent; other agents' entries start their own backend.
func TestZedLease(t *testing.T) {
	root, home, _ := proxyWorkspace(t)
	got := zedEntries(t, root, home, "--lease")
	if a := strings.Join(got["server"].Args, " "); !strings.HasPrefix(a, "proxy server --lease ") {
		t.Errorf("service entry args %q, want --lease", a)
	}
	if a := strings.Join(got["helper"].Args, " "); strings.Contains(a, "--lease") {
		t.Errorf("tool entry args %q: leases only for services", a)
	}
	if a := strings.Join(zedEntries(t, root, home)["server"].Args, " "); strings.Contains(a, "--lease") {
		t.Errorf("without --lease: %q", a)
	}
}
