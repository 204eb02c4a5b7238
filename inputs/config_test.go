package inputs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/actctl/actctl/internal/layout"
)

// cacheWorkspace is a workspace with a state, whose config files were
// written an hour ago, and its config cache saved with snapshot "snap".
func cacheWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	write(t, filepath.Join(root, "actant.cue"), "package actant\n")
	write(t, filepath.Join(root, "cue.mod/module.cue"), "module: \"x.example\"\n")
	write(t, layout.Path(root, layout.State), "{}")
	age(t, root, "actant.cue", "cue.mod/module.cue")
	saveSnap(t, root, "snap")
	if _, err := os.Stat(layout.Path(root, layout.ConfigCache)); err != nil {
		t.Fatalf("nothing cached: %v", err)
	}
	return root
}

// testHome is the actctl home of the tests' workspace root: beside it,
// in the test's own temporary directory.
func testHome(root string) string { return filepath.Join(filepath.Dir(root), "home") }

// testKey is the cache key of testHome(root), made if missing.
func testKey(t *testing.T, root string) []byte {
	t.Helper()
	k, why := cacheKey(root, testHome(root), true)
	if k == nil {
		t.Fatal(why)
	}
	return k
}

func age(t *testing.T, root string, paths ...string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, p := range paths {
		if err := os.Chtimes(filepath.Join(root, p), old, old); err != nil {
			t.Fatal(err)
		}
	}
}

func saveSnap(t *testing.T, root, snap string) {
	t.Helper()
	_, key, _ := ConfigSnapshot(root, testHome(root))
	if key == nil {
		t.Fatal("no key")
	}
	if err := key.Save(func() ([]byte, error) { return []byte(snap), nil }); err != nil {
		t.Fatal(err)
	}
}

// TestConfigCache: the snapshot comes back while the files the
// evaluation read are unchanged, and not after any change to them.
func TestConfigCache(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, root string)
		why    string
	}{
		{"unchanged", func(*testing.T, string) {}, ""},
		{"config edited", func(t *testing.T, root string) { write(t, filepath.Join(root, "actant.cue"), "package actant\n\n") }, "actant.cue changed"},
		{"config touched", func(t *testing.T, root string) { age(t, root, "actant.cue") }, "actant.cue changed"},
		{"a second file", func(t *testing.T, root string) { write(t, filepath.Join(root, "more.cue"), "package actant\n") }, "more.cue is new"},
		{"cue.mod file", func(t *testing.T, root string) { write(t, filepath.Join(root, "cue.mod/pkg/a/a.cue"), "package a\n") }, "is new"},
		{"config gone", func(t *testing.T, root string) { rm(t, filepath.Join(root, "actant.cue")) }, "is gone"},
		{"environment", func(t *testing.T, root string) { t.Setenv("CUE_EXPERIMENT", "x") }, "the environment changed"},
		{"snapshot corrupted", func(t *testing.T, root string) {
			p := layout.Path(root, layout.ConfigCache)
			b, _ := os.ReadFile(p)
			write(t, p, strings.TrimSuffix(string(b), "snap")+"snaq")
		}, "does not match its seal"},
		{"cache unreadable", func(t *testing.T, root string) {
			write(t, layout.Path(root, layout.ConfigCache), string(seal(testKey(t, root), []byte("{"))))
		}, "unreadable"},
		{"other root", func(t *testing.T, root string) {
			p := layout.Path(root, layout.ConfigCache)
			b, _ := os.ReadFile(p)
			body, _ := unseal(testKey(t, root), b)
			write(t, p, string(seal(testKey(t, root), []byte(strings.Replace(string(body), root, root+"x", 1)))))
		}, "made for"},
	}
	// What a crash may leave of a cache written without fsync.
	for name, damage := range damages {
		cases = append(cases, struct {
			name   string
			change func(t *testing.T, root string)
			why    string
		}{name, func(t *testing.T, root string) {
			p := layout.Path(root, layout.ConfigCache)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			write(t, p, string(damage(b)))
		}, "config cache: damaged"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := cacheWorkspace(t)
			tc.change(t, root)
			snap, key, why := ConfigSnapshot(root, testHome(root))
			if key == nil {
				t.Fatal("no key")
			}
			if tc.why == "" {
				if string(snap) != "snap" || why != "" {
					t.Fatalf("snapshot %q, why %q; want it back", snap, why)
				}
				return
			}
			if snap != nil || !strings.Contains(why, tc.why) {
				t.Fatalf("snapshot %q, why %q; want none because %q", snap, why, tc.why)
			}
		})
	}
}

// TestConfigCacheSaveRefused: nothing is cached while an input's stat
// data cannot be trusted (modified since just before the load), nor in a
// workspace without a state; a nil key saves nothing.
func TestConfigCacheSaveRefused(t *testing.T) {
	root := cacheWorkspace(t)
	write(t, filepath.Join(root, "actant.cue"), "package actant\n// new\n") // racy: just written
	saveSnap(t, root, "new")
	if snap, _, why := ConfigSnapshot(root, testHome(root)); snap != nil || !strings.Contains(why, "actant.cue changed") {
		t.Fatalf("a racy load was cached: %q %q", snap, why)
	}

	bare := t.TempDir()
	write(t, filepath.Join(bare, "actant.cue"), "package actant\n")
	age(t, bare, "actant.cue")
	saveSnap(t, bare, "snap")
	if _, err := os.Stat(layout.Path(bare, layout.Dir)); !os.IsNotExist(err) {
		t.Fatalf("a workspace without a state got %s: %v", layout.Dir, err)
	}
	var nilKey *ConfigKey
	if err := nilKey.Save(func() ([]byte, error) { t.Fatal("snapshot made for a nil key"); return nil, nil }); err != nil {
		t.Fatal(err)
	}
}
