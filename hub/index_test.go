//go:build unix

package hub

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"cuelang.org/go/cue/token"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/schema"
)

// sameComponents fails unless a and b are equal, positions compared by
// what they say (file, line, column, offset, relative bits).
func sameComponents(t *testing.T, a, b *Components) {
	t.Helper()
	strip := func(c *Components) Components {
		x := *c
		x.Info = map[string]Info{}
		for k, in := range c.Info {
			in.Pos = token.NoPos
			x.Info[k] = in
		}
		return x
	}
	for k, ia := range a.Info {
		ib, ok := b.Info[k]
		if !ok {
			continue // reported by DeepEqual below
		}
		pa, pb := ia.Pos, ib.Pos
		if pa.Filename() != pb.Filename() || pa.Line() != pb.Line() || pa.Column() != pb.Column() || pa.Offset() != pb.Offset() ||
			pa.RelPos() != pb.RelPos() || pa.HasComma() != pb.HasComma() || pa.Scanned() != pb.Scanned() || pa.IsValid() != pb.IsValid() {
			t.Errorf("%s: position %v (offset %d), want %v (offset %d)", k, pb, pb.Offset(), pa, pa.Offset())
		}
	}
	if sa, sb := strip(a), strip(b); !reflect.DeepEqual(sa, sb) {
		t.Errorf("components differ after the index round trip:\n got %+v\nwant %+v", sb, sa)
	}
}

// TestIndexRoundTrip: for every layout, what the index gives back is
// exactly what ReadTree returned (nil and empty kept apart, sibling file
// bytes, sources, positions, notes).
func TestIndexRoundTrip(t *testing.T) {
	trees := map[string]fs.FS{
		"actant-hub":          os.DirFS("testdata/actant-hub"),
		"actant-hub-snapshot": os.DirFS("testdata/actant-hub-snapshot"),
		"agent-skills": fstest.MapFS{
			"review/SKILL.md":         {Data: []byte("---\nname: code-review\ndescription: >\n  Review code\n  carefully\n---\nBody\n")},
			"review/scripts/check.sh": {Data: []byte("echo hi\n")},
			"review/empty.txt":        {Data: []byte{}},
			"nested/lint/SKILL.md":    {Data: []byte("---\ndescription: Lint\n---\nLint body\n")},
		},
		"cue": fstest.MapFS{
			"hub.cue": {Data: []byte("package actant\n\nskills: review: {description: \"Review\", content: \"Review body\"}\nskills: lint: {file: \"lint.md\"}\nprompts: sys: content: \"You are {{role}}\"\nmcpServers: fs: {command: \"npx\", args: [\"fs\"]}\ntemplates: reviewer: {\n\tbackend: \"claude-code\"\n\tskills: [\"review\", \"lint\"]\n}\n")},
			"lint.md": {Data: []byte("---\ndescription: Lint it\n---\nLint body")},
		},
	}
	for name, fsys := range trees {
		t.Run(name, func(t *testing.T) {
			c, err := ReadTree(fsys, "/cache/trees/"+name)
			if err != nil {
				t.Fatal(err)
			}
			m := marker{Commit: strings.Repeat("a", 40), Digest: "sha256:1234"}
			h := headerFor("/cache/trees/"+name, m)
			data, err := encodeIndex(h, c)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeIndex(data, h)
			if err != nil {
				t.Fatal(err)
			}
			sameComponents(t, c, got)
			if name == "cue" && got.Info["template/reviewer"].Pos.Line() != 7 {
				t.Errorf("CUE position: %v", got.Info["template/reviewer"].Pos)
			}
			checkIndexRefused(t, data, h, m, "/cache/trees/"+name)
		})
	}
}

// checkIndexRefused: the index data, written with header h for the tree
// dir of marker m, is refused with any other header (directory, commit,
// path, digest, format version, build), truncated anywhere, or with any
// byte flipped.
func checkIndexRefused(t *testing.T, data []byte, h indexHeader, m marker, dir string) {
	t.Helper()
	// Bound to the tree: any other directory, commit, path,
	// digest or format version is refused.
	for _, other := range []indexHeader{
		headerFor("/elsewhere", m),
		headerFor(dir, marker{Commit: strings.Repeat("b", 40), Digest: m.Digest}),
		headerFor(dir, marker{Commit: m.Commit, Path: "sub", Digest: m.Digest}),
		headerFor(dir, marker{Commit: m.Commit, Digest: "sha256:5678"}),
		func() indexHeader { x := h; x.Version++; return x }(),
		func() indexHeader { x := h; x.Stamp = "other actctl"; return x }(),
	} {
		if _, err := decodeIndex(data, other); err == nil {
			t.Errorf("index accepted for %+v", other)
		}
	}
	// Every truncation and every flipped byte is detected.
	for i := 0; i < len(data); i += 1 + len(data)/200 {
		if _, err := decodeIndex(data[:i], h); err == nil {
			t.Fatalf("truncated at %d: accepted", i)
		}
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x20
		if _, err := decodeIndex(bad, h); err == nil {
			t.Fatalf("byte %d flipped: accepted", i)
		}
	}
}

func indexCounts() (loaded, read int) {
	indexStats.Lock()
	defer indexStats.Unlock()
	return indexStats.loaded, indexStats.read
}

// treeOf returns the single cached tree directory under home.
func treeOf(t *testing.T, home string) string {
	t.Helper()
	ms, _ := filepath.Glob(filepath.Join(home, "hub", "*", "trees", "*.json"))
	if len(ms) != 1 {
		t.Fatalf("want one cached tree, got %v", ms)
	}
	return strings.TrimSuffix(ms[0], ".json")
}

// TestEnsureIndex: the first sync indexes the tree; a satisfied sync
// loads the index and does not read the tree at all; a corrupt, foreign
// or stale index is ignored, the tree read again and the index rebuilt.
func TestEnsureIndex(t *testing.T) {
	r := newHubRepo(t)
	_, home, load := workspace(t, fmt.Sprintf("hub: h: {url: %q, ref: tag: \"v1.0.0\"}\nagents: a: template: \"h@actant-onboarder\"\n", "file://"+r.dir))
	l0, r0 := indexCounts()
	first := load()
	ensure(t, first, Options{})
	if l, rd := indexCounts(); l != l0 || rd != r0+1 {
		t.Fatalf("first sync: %d index loads, %d tree reads", l-l0, rd-r0)
	}
	tree := treeOf(t, home)
	want, idx := checkIndexWritten(t, tree)
	checkIndexServes(t, tree, want, first, load)
	checkDamagedIndexes(t, tree, want, idx, load)
}

// checkIndexWritten returns the components of tree, read, and its index,
// which must have been written (no temporary file left).
func checkIndexWritten(t *testing.T, tree string) (*Components, []byte) {
	t.Helper()
	want, err := ReadTree(os.DirFS(tree), tree)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := os.ReadFile(indexPath(tree))
	if err != nil {
		t.Fatalf("no index written: %v", err)
	}
	if tmps, _ := filepath.Glob(filepath.Join(filepath.Dir(tree), atomicfile.TempPrefix+"*")); len(tmps) > 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
	return want, idx
}

// checkIndexServes: a satisfied sync loads the index and does not read the
// tree (proved by removing a file from it: the components do not change),
// nor uses the network; what it merges is what the first sync (first) did.
func checkIndexServes(t *testing.T, tree string, want *Components, first *schema.Config, load func() *schema.Config) {
	t.Helper()
	saved, err := os.ReadFile(filepath.Join(tree, "skills", "web-research.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(tree, "skills", "web-research.json")); err != nil {
		t.Fatal(err)
	}
	n := countNet(t)
	l0, r0 := indexCounts()
	cfg := load()
	rep := ensure(t, cfg, Options{})
	if l, rd := indexCounts(); l != l0+1 || rd != r0 || n.Load() != 0 {
		t.Fatalf("satisfied sync: %d index loads, %d tree reads, %d network ops", l-l0, rd-r0, n.Load())
	}
	sameComponents(t, want, rep.Sources[0].Components)
	if _, ok := cfg.Skills["h@web-research"]; !ok {
		t.Error("component missing from the satisfied sync")
	}
	for k := range first.Skills {
		if !reflect.DeepEqual(first.Skills[k], cfg.Skills[k]) {
			t.Errorf("%s differs between the first and the satisfied sync", k)
		}
	}
	if p := cfg.Pos("templates.\"h@actant-onboarder\""); !strings.HasSuffix(p.Filename(), "templates/actant-onboarder.json") || p.Line() != 1 {
		t.Errorf("position %v does not name the hub file", p)
	}
	if err := os.WriteFile(filepath.Join(tree, "skills", "web-research.json"), saved, 0o444); err != nil {
		t.Fatal(err)
	}
}

// checkDamagedIndexes: each damaged index (from the valid idx) is ignored,
// the tree read, the index rewritten (valid again).
func checkDamagedIndexes(t *testing.T, tree string, want *Components, idx []byte, load func() *schema.Config) {
	t.Helper()
	flipped := append([]byte(nil), idx...)
	flipped[len(flipped)/2] ^= 1
	m, _ := readMarker(tree)
	foreign, err := encodeIndex(headerFor(tree, marker{Commit: m.Commit, Path: m.Path, Digest: "sha256:other"}), &Components{Layout: LayoutAgentSkills})
	if err != nil {
		t.Fatal(err)
	}
	for name, damage := range map[string]func(){
		"flipped byte": func() { writeIndex(t, tree, flipped) },
		"truncated":    func() { writeIndex(t, tree, idx[:len(idx)-10]) },
		"empty":        func() { writeIndex(t, tree, nil) },
		"garbage":      func() { writeIndex(t, tree, []byte("{\"not\": \"an index\"}")) },
		"other digest": func() { writeIndex(t, tree, foreign) },
		"missing":      func() { _ = os.Remove(indexPath(tree)) },
	} {
		damage()
		l0, r0 := indexCounts()
		cfg := load()
		rep := ensure(t, cfg, Options{})
		if l, rd := indexCounts(); l != l0 || rd != r0+1 {
			t.Errorf("%s: %d index loads, %d tree reads", name, l-l0, rd-r0)
		}
		sameComponents(t, want, rep.Sources[0].Components)
		if _, ok := cfg.Templates["h@actant-onboarder"]; !ok {
			t.Errorf("%s: components not merged", name)
		}
		c, err := loadIndex(tree, m)
		if err != nil {
			t.Errorf("%s: index not rebuilt: %v", name, err)
			continue
		}
		sameComponents(t, want, c)
	}
}

func writeIndex(t *testing.T, tree string, data []byte) {
	t.Helper()
	if err := os.WriteFile(indexPath(tree), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEnsureIndexLockBusy: when another process holds the cache lock, a
// satisfied sync without a usable index reads the tree and does not wait
// for the lock (nor write the index); the next sync writes it.
func TestEnsureIndexLockBusy(t *testing.T) {
	r := newHubRepo(t)
	_, home, load := workspace(t, fmt.Sprintf("hub: h: {url: %q, ref: tag: \"v1.0.0\"}\n", "file://"+r.dir))
	ensure(t, load(), Options{})
	tree := treeOf(t, home)
	if err := os.Remove(indexPath(tree)); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockDir(context.Background(), filepath.Dir(filepath.Dir(tree)))
	if err != nil {
		t.Fatal(err)
	}
	ensure(t, load(), Options{})
	if _, err := os.Stat(indexPath(tree)); err == nil {
		t.Error("index written without the cache lock")
	}
	unlock()
	ensure(t, load(), Options{})
	if _, err := os.Stat(indexPath(tree)); err != nil {
		t.Errorf("index not written once the lock was free: %v", err)
	}
}
