package schema

import (
	"encoding/json"
	"fmt"
	"maps"

	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"cuelang.org/go/cue/token"

	"github.com/actctl/actctl/internal/benchconfig"
)

// snapshotWorkspaces are configs a snapshot must reproduce exactly: the
// repository's own and its examples, a large generated one, and one whose
// fields come from a comprehension (positions only the value knows).
func snapshotWorkspaces(t *testing.T) map[string]string {
	ws := map[string]string{
		"repository": "..",
		"quickstart": "../examples/quickstart",
		"team-hub":   "../examples/team-hub",
		"zed":        "../examples/zed",
	}
	ws["generated"] = writeWorkspace(t, benchconfig.FilesSkills(20, 20))
	ws["comprehension"] = writeWorkspace(t, map[string]string{
		"actant.cue": `package actant

_names: ["a", "b"]
skills: s: {description: "d", content: "x"}
templates: t: {backend: "cursor", skills: ["s"], settings: cursor: {n: 12345678901234567890, f: 0.5}}
for n in _names {
	agents: "\(n)": {template: "t", workDir: n}
}
`,
		"extra.cue": "package actant\n\nprompts: p: content: \"y\"\n",
		"a/.keep":   "", "b/.keep": ""})
	return ws
}

// TestSnapshotRoundTrip: a config loaded from the snapshot of its
// evaluation equals the evaluated one — every field, the warnings, and
// the position of every field (and of fields that do not exist, which
// take their closest parent's).
func TestSnapshotRoundTrip(t *testing.T) {
	for name, dir := range snapshotWorkspaces(t) {
		t.Run(name, func(t *testing.T) {
			root, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			home := filepath.Join(t.TempDir(), "home")
			want, err := LoadDir(root, home)
			if err != nil {
				t.Fatal(err)
			}
			snap, err := want.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			got, err := LoadSnapshot(root, home, snap)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := got.Snapshot(); err == nil {
				t.Error("a config loaded from a snapshot made a snapshot")
			}
			every := maps.Clone(want.pos)
			addValuePositions(want.value, nil, every)
			paths := append(slices.Collect(maps.Keys(every)), "agents.nobody.template", "skills.nothing[3]", "zzz")
			for _, p := range paths {
				if w, g := posString(want.Pos(p)), posString(got.Pos(p)); w != g {
					t.Errorf("Pos(%s) = %s, want %s", p, g, w)
				}
			}
			if len(got.pos) == 0 {
				t.Error("no positions restored")
			}
			if w, g := want.Warnings.Error(), got.Warnings.Error(); w != g {
				t.Errorf("warnings:\n%s\nwant:\n%s", g, w)
			}
			for _, c := range []*Config{want, got} {
				c.value, c.evaluated, c.pos, c.Warnings = want.value, nil, nil, nil
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("config from the snapshot differs:\n%+v\nwant\n%+v", got, want)
			}
		})
	}
}

// TestReleaseKeepsPositions: a config that let go of its CUE value
// (Release) finds every position it found before, and its snapshot is
// the one it would have made.
func TestReleaseKeepsPositions(t *testing.T) {
	for name, dir := range snapshotWorkspaces(t) {
		t.Run(name, func(t *testing.T) {
			root, err := filepath.Abs(dir)
			if err != nil {
				t.Fatal(err)
			}
			c, err := LoadDir(root, filepath.Join(t.TempDir(), "home"))
			if err != nil {
				t.Fatal(err)
			}
			snap, err := c.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			every := maps.Clone(c.pos)
			addValuePositions(c.value, nil, every)
			paths := append(slices.Collect(maps.Keys(every)), "agents.nobody.template", "skills.nothing[3]", "zzz")
			want := map[string]string{}
			for _, p := range paths {
				want[p] = posString(c.Pos(p))
			}
			if err := c.Release(); err != nil {
				t.Fatal(err)
			}
			if c.value.Exists() {
				t.Fatal("the value is still held")
			}
			for _, p := range paths {
				if g := posString(c.Pos(p)); g != want[p] {
					t.Errorf("Pos(%s) = %s, want %s", p, g, want[p])
				}
			}
			got, err := c.Snapshot()
			if err != nil || !reflect.DeepEqual(snapshotTable(t, got), snapshotTable(t, snap)) {
				t.Errorf("snapshot after Release differs (%v)", err)
			}
		})
	}
}

// snapshotTable is what the snapshot b says, in a form that compares
// equal whatever the order its positions were encoded in.
func snapshotTable(t *testing.T, b []byte) map[string]string {
	var s snapshot
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{"": string(s.Config) + fmt.Sprint(s.Version, s.Files)}
	for i, p := range s.Paths {
		src := s.Sources[s.At[2*i]]
		out[p] = fmt.Sprint(src.Name, src.Size, src.Lines, s.At[2*i+1])
	}
	return out
}

func posString(p token.Pos) string {
	if !p.IsValid() {
		return "-"
	}
	return p.String()
}

// TestSnapshotRefused: a snapshot of another format version, or not one
// at all, is an error (the caller evaluates instead).
func TestSnapshotRefused(t *testing.T) {
	root := writeWorkspace(t, map[string]string{"actant.cue": "package actant\n"})
	for _, b := range []string{"", "{", `{"version": 99}`, `{"version": 1, "config": {}, "paths": ["a"], "at": []}`} {
		if _, err := LoadSnapshot(root, t.TempDir(), []byte(b)); err == nil || !strings.Contains(err.Error(), "config snapshot") {
			t.Errorf("LoadSnapshot(%q) = %v, want a config snapshot error", b, err)
		}
	}

}

// BenchmarkLoadSnapshot is BenchmarkLoad from a snapshot of the
// evaluation (what a load costs when the config cache holds it), and the
// cost of making the snapshot.
func BenchmarkLoadSnapshot(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		dir := writeWorkspace(b, benchconfig.FilesSkills(n, 20))
		home := b.TempDir()
		cfg, err := LoadDir(dir, home)
		if err != nil {
			b.Fatal(err)
		}
		snap, err := cfg.Snapshot()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("agents=%d/load", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := LoadSnapshot(dir, home, snap); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("agents=%d/make", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := cfg.Snapshot(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(snap)), "bytes")
		})
	}
}
