package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// parsed is what a command's action saw: the global flags and arguments.
type parsed struct {
	g    *globals
	args []string
}

// captureCommands copies cmds with every action replaced by one that
// records what it parsed into got.
func captureCommands(cmds []*cli.Command, got *parsed) []*cli.Command {
	out := make([]*cli.Command, len(cmds))
	for i, c := range cmds {
		cc := *c
		cc.Subcommands = captureCommands(c.Subcommands, got)
		if c.Action != nil {
			cc.Action = func(c *cli.Context) error {
				*got = parsed{g: globalsOf(c), args: c.Args().Slice()}
				return nil
			}
		}
		out[i] = &cc
	}
	return out
}

// leafPaths lists the runnable command paths of cmds: ["apply"], ["hub", "sync"].
func leafPaths(cmds []*cli.Command, prefix []string) [][]string {
	var out [][]string
	for _, c := range cmds {
		p := append(append([]string(nil), prefix...), c.Name)
		if c.Action != nil {
			out = append(out, p)
		}
		out = append(out, leafPaths(c.Subcommands, p)...)
	}
	return out
}

// requiredFlags gives a value to the required flags of the command at path.
func requiredFlags(cmds []*cli.Command, path []string) []string {
	var c *cli.Command
	for _, name := range path {
		c = findCommand(cmds, name)
		cmds = c.Subcommands
	}
	var out []string
	for _, f := range c.Flags {
		if r, ok := f.(cli.RequiredFlag); ok && r.IsRequired() {
			out = append(out, "--"+f.Names()[0], "1")
		}
	}
	return out
}

// TestGlobalFlagsAnyPosition: every command accepts every global flag
// before the command, right after it, and after its argument, and the
// command still gets exactly its argument.
func TestGlobalFlagsAnyPosition(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	t.Setenv("ACTANT_HOME", "")
	dir := t.TempDir()
	flags := []struct {
		args []string
		ok   func(g *globals) bool
	}{
		{[]string{"-C", dir}, func(g *globals) bool { return g.Dir == dir }},
		{[]string{"-C=" + dir}, func(g *globals) bool { return g.Dir == dir }},
		{[]string{"--home", dir}, func(g *globals) bool { return g.Home == dir }},
		{[]string{"-o", "json"}, func(g *globals) bool { return g.Output == "json" }},
		{[]string{"--output=json"}, func(g *globals) bool { return g.Output == "json" }},
		{[]string{"--no-color"}, func(g *globals) bool { return g.NoColor }},
	}
	paths := leafPaths(commands, nil)
	if len(paths) < 15 {
		t.Fatalf("only %d commands found: %v", len(paths), paths)
	}
	for _, path := range paths {
		base := append(append(append([]string(nil), path...), requiredFlags(commands, path)...), "X")
		for _, fl := range flags {
			for _, at := range []int{0, len(path), len(base)} {
				args := append(append(append([]string{"actctl"}, base[:at]...), fl.args...), base[at:]...)
				var got parsed
				app := newApp(io.Discard, io.Discard)
				app.Commands = captureCommands(app.Commands, &got)
				if err := app.Run(normalizeArgs(app, args)); err != nil {
					t.Errorf("%q: %v", args[1:], err)
					continue
				}
				if got.g == nil || !fl.ok(got.g) || !reflect.DeepEqual(got.args, []string{"X"}) {
					t.Errorf("%q: parsed %+v, args %q", args[1:], got.g, got.args)
				}
			}
		}
	}
}

// TestNormalizeArgs: flag values are never taken for arguments, the last
// of a repeated flag wins, "--" ends flag moving, unknown commands and
// flags are left for urfave/cli to report.
func TestNormalizeArgs(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	for _, tt := range []struct{ in, want string }{
		{"get agents -o json", "-o json get agents"},
		{"-C a proxy x -C b --cwd d", "-C a -C b proxy --cwd d x"},
		{"proxy x -t tool --home h", "--home h proxy -t tool x"},
		{"attach x --pid 3 -o=json", "-o=json attach --pid 3 x"},
		{"hub sync --frozen --no-color", "--no-color hub sync --frozen"},
		{"hub ls src -C d", "-C d hub ls src"},
		// "--" ends the flags where it was typed, after an argument too.
		{"apply a --dry-run -- -o b", "apply --dry-run -- a -o b"},
		{"apply --nope x", "apply --nope x"},
		{"nosuch -o json", "nosuch -o json"},
		{"--nope get agents", "--nope get agents"},
		{"resolve - -o json", "-o json resolve -"},
	} {
		got := strings.Join(normalizeArgs(app, append([]string{"actctl"}, strings.Fields(tt.in)...))[1:], " ")
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestGlobalFlagsAfterCommandE2E: the forms users type, through the binary.
func TestGlobalFlagsAfterCommandE2E(t *testing.T) {
	dir, home := agentWorkspace(t)
	elsewhere := t.TempDir()
	for _, tt := range []struct {
		cwd  string
		args []string
	}{
		{dir, []string{"get", "agents", "-o", "json"}},
		{dir, []string{"resolve", "helper", "-o", "json"}},
		{dir, []string{"status", "-o", "json"}},
		{elsewhere, []string{"resolve", "helper", "-C", dir, "-o", "json"}},
		{elsewhere, []string{"version", "-o", "json"}},
	} {
		args := tt.args
		r := actctl(t, tt.cwd, home, args...)
		var v any
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &v) != nil {
			t.Errorf("%v: exit %d, not JSON:\n%s%s", args, r.Code, r.Stdout, r.Stderr)
		}
	}
	// --home after the command is the home used, not ACTANT_HOME.
	other := filepath.Join(t.TempDir(), "h2")
	if r := actctl(t, dir, home, "apply", "worker", "--home", other); r.Code != 0 {
		t.Fatalf("apply --home after the command: %s", r.Stderr)
	}
	if _, err := os.Stat(filepath.Join(other, "instances", "worker")); err != nil {
		t.Errorf("--home after the command ignored: %v", err)
	}
}

// TestProxyGlobalFlagsE2E: a client that puts -C before the command (acpx
// does) and --home after it, from another directory, gets the workspace
// and the home it named.
func TestProxyGlobalFlagsE2E(t *testing.T) {
	root, home, out := proxyWorkspace(t)
	other := filepath.Join(t.TempDir(), "h2")
	c := startActctl(t, t.TempDir(), home, "-C", root, "proxy", "builder", "--home", other)
	c.initialize()
	c.close()
	if got := agentLog(t, out); got[0] != "process "+filepath.Join(other, "instances", "builder") {
		t.Errorf("backend ran as %v, want in the --home instance", got)
	}
}

func TestVersionOf(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}
	for _, tt := range []struct {
		linked string
		bi     *debug.BuildInfo
		want   string
	}{
		{"v1.0.0", &debug.BuildInfo{Main: debug.Module{Version: "v2.0.0"}}, "v1.0.0"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs}, "devel-0123456789ab+dirty"},
		{"", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, ""},
		{"", nil, ""},
	} {
		if got := versionOf(tt.linked, tt.bi); got != tt.want {
			t.Errorf("versionOf(%q, %+v) = %q, want %q", tt.linked, tt.bi, got, tt.want)
		}
	}
}

// TestNoLoadCommands: version, help and schema work beside a broken and
// beside an unreadable actant.cue, and version names a real version.
func TestNoLoadCommands(t *testing.T) {
	broken := t.TempDir()
	writeFiles(t, broken, map[string]string{"actant.cue": "package actant\nagents: {\n"})
	unreadable := t.TempDir()
	os.Mkdir(filepath.Join(unreadable, "actant.cue"), 0o755) // reading it fails
	home := t.TempDir()
	writeFiles(t, home, map[string]string{"actant.cue": "agents: x: template: nope\n"})
	for _, dir := range []string{broken, unreadable} {
		if r := actctl(t, dir, home, "validate"); r.Code == 0 {
			t.Fatalf("the config in %s loads; the test proves nothing", dir)
		}
		for _, args := range [][]string{{"version"}, {"-o", "json", "version"}, {"help"}, {"--help"}, {"help", "apply"}, {"schema"}, {"-C", dir, "version"}} {
			r := actctl(t, dir, home, args...)
			if r.Code != 0 || r.Stderr != "" || r.Stdout == "" {
				t.Errorf("%v in %s: exit %d\n%s%s", args, dir, r.Code, r.Stdout, r.Stderr)
			}
		}
	}
	r := actctl(t, broken, home, "version")
	if !regexp.MustCompile(`^actctl (v\d+\.\d+\.\d+\S*|devel-[0-9a-f]{12}\S*|devel\+sha256\.[0-9a-f]{12}) \(go\S+\)\n$`).MatchString(r.Stdout) {
		t.Errorf("version printed %q", r.Stdout)
	}
}
