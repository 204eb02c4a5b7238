package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestStartupCompilesNoRegexp: every actctl command, `--help` included,
// initialises every package the binary links, so none of actctl's own
// may do work at start-up that only some command needs: compiling a
// regular expression costs kilobytes of allocation (and ~0.1 ms) in each
// package's init. Go's init trace of `actctl --help` gives each
// package's allocation; a package-level regexp.MustCompile shows as
// 2-8 KB, a sync.OnceValue compiled on first use as a few dozen bytes.
func TestStartupCompilesNoRegexp(t *testing.T) {
	r := actctlEnv(t, t.TempDir(), "", []string{"GODEBUG=inittrace=1"}, "--help")
	if r.Code != 0 {
		t.Fatalf("actctl --help: exit %d\n%s", r.Code, r.Stderr)
	}
	light := map[string]bool{
		"github.com/actctl/actctl/internal/tomlkeys":    true,
		"github.com/actctl/actctl/internal/frontmatter": true,
		"github.com/actctl/actctl/proxy":                true,
		"github.com/actctl/actctl/hooks":                true,
	}
	seen := 0
	for _, line := range strings.Split(r.Stderr, "\n") {
		// init PKG @0.5 ms, 0.01 ms clock, 2648 bytes, 37 allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || !light[f[1]] {
			continue
		}
		seen++
		bytes, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("unexpected init trace line %q", line)
		}
		if bytes > 512 {
			t.Errorf("%s allocates %d bytes at start-up (want <= 512: compile on first use)", f[1], bytes)
		}
	}
	if seen != len(light) {
		t.Fatalf("init trace names %d of the %d packages:\n%s", seen, len(light), r.Stderr)
	}
}
