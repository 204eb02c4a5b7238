package repodoc

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// citedTest is a test, fuzz target or benchmark named in prose.
	citedTest = regexp.MustCompile(`\b(?:Test|Fuzz|Benchmark)[A-Z][A-Za-z0-9_]*`)
	// citedFile is a repository path to a Go file or a test script
	// (a `*` globs, as in `deploy_refused_*.txtar`).
	citedFile = regexp.MustCompile(`\b(?:[A-Za-z0-9_.*-]+/)+[A-Za-z0-9_.*-]+\.(?:go|txtar)\b|\.ci/[A-Za-z0-9_.-]+`)
	// placeholder is a name standing for any (`TestX|TestY`, `NAME.txtar`).
	placeholder = regexp.MustCompile(`^(?:Test[A-Z]|[A-Z]+\.txtar)$`)
)

// TestDocsCiteWhatExists checks that every test and every repository
// file README.md and docs/*.md name exists: a test, fuzz target or
// benchmark declared by some _test.go of the tree (a benchmark named in
// a -bench pattern may be a prefix of the ones it runs), a Go file or a
// test script at that path from the repository's root (a path whose
// first element is not at the root is another tree's, like a tool's
// docs/...). A test renamed or moved without the docs leaves them
// pointing at nothing; this is what catches it.
func TestDocsCiteWhatExists(t *testing.T) {
	declared := testFuncs(t)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, filepath.Join(root, "README.md"))
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		for i, line := range strings.Split(string(b), "\n") {
			for _, name := range citedTest.FindAllString(line, -1) {
				if !placeholder.MatchString(name) && !declaredName(declared, name) {
					t.Errorf("%s:%d: %s: no _test.go declares it", rel, i+1, name)
				}
			}
			for _, p := range citedFile.FindAllString(line, -1) {
				if !citedFileExists(p) {
					t.Errorf("%s:%d: %s: no such file", rel, i+1, p)
				}
			}
		}
	}
}

// declaredName reports whether name is declared, or, for a benchmark, is
// the prefix of one that is (a -bench pattern).
func declaredName(declared map[string]bool, name string) bool {
	if declared[name] {
		return true
	}
	if !strings.HasPrefix(name, "Benchmark") {
		return false
	}
	for d := range declared {
		if strings.HasPrefix(d, name) {
			return true
		}
	}
	return false
}

// citedFileExists reports whether path p (slash separated, from the
// repository's root, maybe a glob) names a file, or is no path of this
// repository: its first element is not at the root, or it is a
// placeholder.
func citedFileExists(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	if _, err := os.Stat(filepath.Join(root, first)); err != nil || placeholder.MatchString(filepath.Base(p)) {
		return true
	}
	m, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(p)))
	return err == nil && len(m) > 0
}

// testFuncs are the names of the Test, Fuzz and Benchmark functions the
// tree's _test.go files declare.
func testFuncs(t *testing.T) map[string]bool {
	decl := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)[A-Za-z0-9_]*)\(`)
	names := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		for _, m := range decl.FindAllSubmatch(b, -1) {
			names[string(m[1])] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}
