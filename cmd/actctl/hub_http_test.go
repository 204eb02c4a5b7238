//go:build unix

package main

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// gitHTTPServer serves the bare repositories under root with git's own
// smart-HTTP backend, behind basic auth that accepts only token as the
// password. It records the user name of every request ("" when none).
func gitHTTPServer(t *testing.T, root, token string) (*httptest.Server, func() []string) {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatalf("git --exec-path: %v", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		t.Fatalf("git-http-backend is required (part of git): %v", err)
	}
	cgiH := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	var mu sync.Mutex
	var users []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		mu.Lock()
		users = append(users, user) // "" for a request without credentials
		mu.Unlock()
		if !ok || pass != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="hub"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		cgiH.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), users...)
	}
}

// bareHubRepo publishes a one-skill, one-template hub in the actant-hub
// layout as hub.git under a new directory, which it returns (a server
// root). The skill's content is skill.
func bareHubRepo(t *testing.T, skill string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	writeFiles(t, src, map[string]string{
		"actant.json":             `{"name":"h","version":"1.0.0"}`,
		"skills/review.json":      `{"name":"review","version":"1.0.0","description":"Review code","content":"` + skill + `"}`,
		"templates/reviewer.json": `{"name":"reviewer","version":"1.0.0","archetype":"tool","backend":{"type":"claude-code"},"domainContext":{"skills":["review"]}}`,
	})
	hubGit(t, src, "init", "-q", "-b", "main")
	hubGit(t, src, "add", "-A")
	hubGit(t, src, "commit", "-q", "-m", "one")
	root := t.TempDir()
	hubGit(t, root, "clone", "-q", "--bare", src, "hub.git")
	return root
}

// TestHubHTTPToken: a hub over HTTP that needs a token gets it from the
// environment variable named by auth.tokenEnv, as the basic-auth password.
// A missing or wrong token fails with a message that names the source and
// writes nothing; the token never appears in the output or in the lock.
func TestHubHTTPToken(t *testing.T) {
	const token = "s3cret-token-value"
	srvRoot := bareHubRepo(t, "# Review")
	srv, users := gitHTTPServer(t, srvRoot, token)

	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeConfig(t, root, `package actant
hub: team: {url: "`+srv.URL+`/hub.git", ref: branch: "main", auth: tokenEnv: "TEAM_HUB_TOKEN"}
agents: rev: template: "team@reviewer"
`)
	run := func(tok string) result {
		return actctlEnv(t, root, home, []string{"TEAM_HUB_TOKEN=" + tok}, "apply")
	}
	nothingWritten := func(what string) {
		t.Helper()
		assertNotWritten(t, root, what, "actant.lock", "CLAUDE.md", ".claude")
	}

	r := run("")
	t.Logf("no token:\n%s", r.Stderr)
	if r.Code != 1 || !strings.Contains(r.Stderr, "TEAM_HUB_TOKEN") || !strings.Contains(r.Stderr, "team") {
		t.Errorf("no token: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	nothingWritten("no token")

	r = run("wrong-token")
	t.Logf("wrong token:\n%s", r.Stderr)
	if r.Code != 1 || !strings.Contains(r.Stderr, `hub source "team"`) || !strings.Contains(r.Stderr, "refused the credentials") || !strings.Contains(r.Stderr, "$TEAM_HUB_TOKEN") {
		t.Errorf("wrong token: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout+r.Stderr, "wrong-token") {
		t.Errorf("the token was printed:\n%s%s", r.Stdout, r.Stderr)
	}
	nothingWritten("wrong token")

	r = run(token)
	if r.Code != 0 {
		t.Fatalf("apply with the token: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(read(t, filepath.Join(root, ".claude/skills/review/SKILL.md")), "# Review") {
		t.Error("the hub skill was not materialized")
	}
	lock := read(t, filepath.Join(root, "actant.lock"))
	for name, text := range map[string]string{"output": r.Stdout + r.Stderr, "actant.lock": lock} {
		if strings.Contains(text, token) {
			t.Errorf("the token is in the %s:\n%s", name, text)
		}
	}
	if u := users(); len(u) == 0 || u[len(u)-1] != "x-access-token" {
		t.Errorf("basic-auth user names sent: %v, want x-access-token", u)
	}
	// The lock is satisfied from the cache: no request at all, even without
	// the token.
	n := len(users())
	if r := run(""); r.Code != 0 || len(users()) != n {
		t.Errorf("satisfied lock: exit %d, %d new requests\n%s%s", r.Code, len(users())-n, r.Stdout, r.Stderr)
	}
}
