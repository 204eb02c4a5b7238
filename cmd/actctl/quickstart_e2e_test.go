package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestQuickstartSaysWhere: the README's first command, run from the top
// of a clone (here a copy: a git repository holding this repository's
// .gitignore and examples/quickstart), says what its paths are relative
// to and that the repository's .gitignore ignores what it wrote; the
// second run says "no changes" and nothing else (issue #22 item 5).
func TestQuickstartSaysWhere(t *testing.T) {
	src, _ := filepath.Abs("../../examples/quickstart")
	clone := t.TempDir()
	hubGit(t, clone, "init", "-q")
	ignore, err := os.ReadFile("../../.gitignore")
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, clone, map[string]string{".gitignore": string(ignore)})
	ex := filepath.Join(clone, "examples", "quickstart")
	if err := os.MkdirAll(filepath.Dir(ex), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(copyTree(t, src), ex); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(t.TempDir(), "home")
	r := actctl(t, clone, home, "-C", "examples/quickstart", "apply")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "in examples/quickstart/:\n  create  ") {
		t.Errorf("first apply: exit %d, stdout does not start with the directory:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if want := "actctl: note: the repository's .gitignore ignores all of the files written here: git status does not list them\n"; !strings.HasSuffix(r.Stderr, want) {
		t.Errorf("first apply: stderr does not end with %q:\n%s", want, r.Stderr)
	}
	r = actctl(t, clone, home, "-C", "examples/quickstart", "apply")
	if r.Code != 0 || r.Stdout != "no changes\n" || strings.Contains(r.Stderr, "ignores") {
		t.Errorf("second apply: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// In the workspace itself, the paths need no directory line.
	writeFiles(t, ex, map[string]string{"actant.cue": "package actant\n"})
	if r := actctl(t, ex, home, "apply"); r.Code != 0 || strings.HasPrefix(r.Stdout, "in ") {
		t.Errorf("prune in the workspace: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestReadmeQuickStartInStep: the README's quick start shows a user's
// path first, then the two commands of a clone, the quickstart apply and
// the test command, and .ci/run runs both (the test
// command verbatim), so what newcomers and CI run stays the same.
func TestReadmeQuickStartInStep(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	// The quick start's first block is a user's path (install, init,
	// apply, look); its second, the newcomer's two commands in a clone.
	blocks := regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllSubmatch(readme, 2)
	if len(blocks) < 2 {
		t.Fatal("README has fewer than two sh blocks")
	}
	commands := func(block []byte) []string {
		var cmds []string
		for line := range strings.Lines(string(block)) {
			cmd, _, _ := strings.Cut(line, "#")
			cmds = append(cmds, strings.TrimSpace(cmd))
		}
		return cmds
	}
	if user := commands(blocks[0][1]); !slices.Contains(user, "actctl init") || !slices.Contains(user, "actctl apply") {
		t.Errorf("README's first commands %q: want a user's path (actctl init, actctl apply)", user)
	}
	cmds := commands(blocks[1][1])
	want := []string{"go run -tags urfave_cli_no_docs ./cmd/actctl -C examples/quickstart apply", "go vet ./... && go test ./..."}
	if len(cmds) < 2 || cmds[0] != want[0] || cmds[1] != want[1] {
		t.Fatalf("README's commands in a clone %q, want %q", cmds, want)
	}
	if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want[1]) + `$`).Match(ci) {
		t.Errorf(".ci/run does not run the README's test command %q", want[1])
	}
	if !strings.Contains(string(ci), `-C "$qs" apply`) || !strings.Contains(string(ci), "examples/quickstart") {
		t.Errorf(".ci/run does not run the README's quickstart apply")
	}
}

// TestReadmeInstallFirstDay: the README's install line names the module
// path (a newcomer has no clone yet) and is followed by the PATH line for
// where go install puts actctl; every go build, install and run line of
// the README and .ci/run's install build carry the same -tags, so
// installing and then running from a clone does not compile twice.
func TestReadmeInstallFirstDay(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/actctl/actctl/cmd/actctl@"
	if !regexp.MustCompile(`(?m)^go install .*` + regexp.QuoteMeta(module)).Match(readme) {
		t.Errorf("README has no `go install ...%s` line", module)
	}
	if !regexp.MustCompile(`(?m)^export PATH="\$\(go env GOPATH\)/bin:\$PATH"`).Match(readme) {
		t.Errorf("README has no PATH line for $(go env GOPATH)/bin")
	}
	goCmd := regexp.MustCompile(`(?m)^go (build|install|run)\b([^#\n]*)`)
	tags := regexp.MustCompile(`-tags[ =](\S+)`)
	var lines [][]byte
	lines = append(lines, goCmd.FindAll(readme, -1)...)
	lines = append(lines, goCmd.FindAll(ci, -1)...)
	var seen []string
	for _, l := range lines {
		if strings.Contains(string(l), "cmd/actctl") {
			tag := ""
			if m := tags.FindSubmatch(l); m != nil {
				tag = string(m[1])
			}
			seen = append(seen, tag)
			if tag != seen[0] {
				t.Errorf("%q builds actctl with tags %q, the README's first build with %q", l, tag, seen[0])
			}
		}
	}
	if len(seen) < 3 {
		t.Errorf("found %d lines building actctl in README and .ci/run, want the install, run and CI build", len(seen))
	}
}
