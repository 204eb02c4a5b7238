package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFirstDayMissingField: the newcomer's misspelled agent, heartbeat
// without prompt and template without backend are each reported at the
// user's own line, in actctl's words and naming the field (never in the
// embedded actctl-schema.cue), and apply writes nothing.
func TestFirstDayMissingField(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant

templates: nightly: {backend: "claude-code", archetype: "employee", schedule: heartbeat: interval: "1h"}
templates: bare: description: "no backend"
agents: nightly: template: "nightly"
agents: nightlly: deploy: github: false
`})
	r := actctl(t, dir, "", "apply")
	if r.Code != 1 {
		t.Fatalf("apply: exit %d, want 1\n%s", r.Code, r.Stderr)
	}
	for _, want := range []string{
		`actant.cue:6:9: agents.nightlly: missing required field "template" (did you mean "nightly"?)`,
		`actant.cue:3:79: templates.nightly.schedule.heartbeat: missing required field "prompt"`,
		`actant.cue:4:12: templates.bare: missing required field "backend"`,
	} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.Stderr)
		}
	}
	if strings.Contains(r.Stderr, "actctl-schema.cue") || strings.Contains(r.Stderr, "incomplete value") {
		t.Errorf("stderr speaks of the embedded schema:\n%s", r.Stderr)
	}
	assertNotWritten(t, dir, "apply", "actant.lock", "CLAUDE.md", ".claude/settings.json")
}

// TestFirstDayCronDayName: a misspelled day name in a cron pattern is
// reported at the pattern with the names to choose from, not in the
// parser's words (strconv.Atoi).
func TestFirstDayCronDayName(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant

templates: nightly: {backend: "claude-code", archetype: "employee", schedule: cron: [{pattern: "0 9 * * MOM", prompt: "x"}]}
agents: nightly: template: "nightly"
`})
	r := actctl(t, dir, "", "validate")
	want := `actant.cue:3:96: templates.nightly.schedule.cron[0].pattern: invalid cron pattern "0 9 * * MOM": "MOM" is not a day of week: the names are SUN MON TUE WED THU FRI SAT`
	if r.Code != 1 || !strings.Contains(r.Stderr, want) || strings.Contains(r.Stderr, "strconv") {
		t.Fatalf("validate: exit %d, want 1 and %q:\n%s", r.Code, want, r.Stderr)
	}
}

// TestFirstDayHubTagNotFound: a hub tag the remote does not have is
// reported at the source's ref in the user's file, with the tags the
// remote has, the nearest first; nothing is written.
func TestFirstDayHubTagNotFound(t *testing.T) {
	repo := taggedRepo(t, "v0.9.0", "v1.0.0", "v1.1.0")
	dir := t.TempDir()
	line := `hub: shared: {url: "` + filepath.ToSlash(repo) + `", ref: tag: "v1.0.1"}`
	writeFiles(t, dir, map[string]string{"actant.cue": "package actant\n\n" + line + "\n"})
	r := actctl(t, dir, "", "hub", "sync")
	want := fmt.Sprintf(`actant.cue:3:%d: hub source "shared"`, strings.Index(line, "ref:")+1)
	tags := `the remote has no tag v1.0.1; its tags, nearest first: v1.0.0, v1.1.0, v0.9.0`
	if r.Code != 1 || !strings.Contains(r.Stderr, want) || !strings.Contains(r.Stderr, tags) {
		t.Fatalf("hub sync: exit %d, want 1, %q and %q:\n%s", r.Code, want, tags, r.Stderr)
	}
	assertNotWritten(t, dir, "hub sync", "actant.lock")
}

// TestFirstDayClaudeModeNoteOnlyWhenDropped: Claude's note on the
// permission modes it drops from a committed settings file is said only
// for the files that set one of them, never for plan (readonly).
func TestFirstDayClaudeModeNoteOnlyWhenDropped(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant
templates: ro: {backend: "claude-code", permissions: "readonly"}
templates: pl: {backend: "claude-code", permissions: defaultMode: "plan"}
templates: rw: {backend: "claude-code", permissions: "standard"}
agents: {a: template: "ro", b: {template: "pl", workDir: "b"}, c: {template: "rw", workDir: "c"}}
`, "b/.keep": "", "c/.keep": ""})
	r := actctl(t, dir, home, "apply")
	want := `note: Claude does not take permissions.defaultMode "acceptEdits", "auto" or "bypassPermissions" from the committed ` + dir + `/c/.claude/settings.json (`
	if r.Code != 0 || !strings.Contains(r.Stderr, want) || strings.Count(r.Stderr, "--permission-mode") != 1 {
		t.Fatalf("apply: exit %d, want the note for c alone %q:\n%s", r.Code, want, r.Stderr)
	}
	dir2 := t.TempDir()
	writeFiles(t, dir2, map[string]string{"actant.cue": `package actant
templates: ro: {backend: "claude-code", permissions: "readonly"}
agents: a: template: "ro"
`})
	if r := actctl(t, dir2, home, "apply"); r.Code != 0 || strings.Contains(r.Stderr, "permission-mode") {
		t.Errorf("apply of a readonly agent: exit %d, want no mode note:\n%s", r.Code, r.Stderr)
	}
}

// taggedRepo is a git repository of one commit that carries tags.
func taggedRepo(t *testing.T, tags ...string) string {
	t.Helper()
	repo := t.TempDir()
	writeFiles(t, repo, map[string]string{"README.md": "hub\n"})
	hubGit(t, repo, "init", "-q")
	hubGit(t, repo, "add", ".")
	hubGit(t, repo, "commit", "-qm", "init")
	for _, tag := range tags {
		hubGit(t, repo, "tag", tag)
	}
	return repo
}

// TestFirstDayWarningsWhereTheyBelong: deploy and schedule warnings are
// printed by validate, apply and diff, not by every status, get,
// describe and logs.
func TestFirstDayWarningsWhereTheyBelong(t *testing.T) {
	dir, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	writeFiles(t, dir, map[string]string{"actant.cue": `package actant

deploy: github: actctl: "latest"
templates: nightly: {backend: "claude-code", archetype: "employee", schedule: cron: [{pattern: "30 2 * * *", prompt: "x", timezone: "America/New_York"}]}
agents: nightly: {template: "nightly", deploy: github: true}
`})
	const deployWarning, scheduleWarning = "warning: deploy.github: the workflows install actctl@latest", "warning: templates.nightly.schedule.cron[0].pattern"
	for _, args := range [][]string{{"validate"}, {"diff"}, {"apply"}} {
		r := actctl(t, dir, home, args...)
		if !strings.Contains(r.Stderr, deployWarning) || !strings.Contains(r.Stderr, scheduleWarning) {
			t.Errorf("%v: exit %d, want both warnings:\n%s", args, r.Code, r.Stderr)
		}
	}
	for _, args := range [][]string{{"status"}, {"get", "agents"}, {"describe", "nightly"}, {"logs", "nightly"}} {
		r := actctl(t, dir, home, args...)
		if r.Code != 0 || strings.Contains(r.Stderr, "warning:") {
			t.Errorf("%v: exit %d, want no warning:\n%s", args, r.Code, r.Stderr)
		}
	}
}

// TestReadmeLeadSnippetValidates: the README's snippet that gives an
// employee actctl's MCP server is a valid config as written, and its
// apply seeds the employee's .heartbeat as docs/runtime.md says.
func TestReadmeLeadSnippetValidates(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var snippet string
	for _, b := range regexp.MustCompile("(?s)```cue\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		if strings.HasPrefix(b[1], "templates: lead:") {
			snippet = b[1]
		}
	}
	if snippet == "" {
		t.Fatal("README has no `templates: lead:` snippet")
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"actant.cue": "package actant\n\n" + snippet})
	if r := actctl(t, dir, "", "validate"); r.Code != 0 {
		t.Errorf("the README's lead snippet does not validate: exit %d\n%s", r.Code, r.Stderr)
	}
	// docs/runtime.md: apply seeds the employee's .heartbeat.
	home := filepath.Join(t.TempDir(), "home")
	if r := actctl(t, dir, home, "apply"); r.Code != 0 {
		t.Fatalf("apply: exit %d\n%s", r.Code, r.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(home, "instances", "lead", ".heartbeat")); err != nil || !strings.Contains(string(b), "Check the open reviews.") {
		t.Errorf("apply did not seed .heartbeat: %q %v", b, err)
	}
}

// TestDocsRunTakesPrompt: the docs write run's prompt with -p, as run
// takes it.
func TestDocsRunTakesPrompt(t *testing.T) {
	files, _ := filepath.Glob("../../docs/*.md")
	files = append(files, "../../README.md")
	bad := regexp.MustCompile(`actctl run [a-z][a-z0-9._-]* "`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := bad.Find(b); m != nil {
			t.Errorf("%s: %q: the prompt goes in -p", f, m)
		}
	}
}
