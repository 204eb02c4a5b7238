package repodoc

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestInvariantsNamed checks docs/design.md's "Invariants" table: every
// test it names as a guard exists in the tree, in the package it names,
// so the table cannot point at a test that was renamed or removed.
func TestInvariantsNamed(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## Invariants")
	if start < 0 {
		t.Fatal(`docs/design.md: no section "Invariants"`)
	}
	section := text[start:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	// A guard cell: `pkg` `TestA`, `TestB`; `pkg2` `FuzzC`.
	ticked := regexp.MustCompile("`([^`]+)`")
	named := 0
	for _, line := range strings.Split(section, "\n") {
		cols := strings.Split(strings.Trim(line, "| "), " | ")
		if !strings.HasPrefix(line, "| ") || len(cols) != 2 || strings.HasPrefix(cols[1], "guarded") || strings.HasPrefix(cols[1], "---") {
			continue
		}
		pkg := ""
		for _, m := range ticked.FindAllStringSubmatch(cols[1], -1) {
			name := m[1]
			if !strings.HasPrefix(name, "Test") && !strings.HasPrefix(name, "Fuzz") {
				pkg = name
				continue
			}
			named++
			if pkg == "" || !declares(t, filepath.Join(root, filepath.FromSlash(pkg)), name) {
				t.Errorf("docs/design.md, Invariants: %s names %s, which package %q does not declare", cols[0][:min(40, len(cols[0]))], name, pkg)
			}
		}
	}
	if named < 10 {
		t.Errorf("docs/design.md, Invariants: %d tests named, want the table's guards (at least 10)", named)
	}
}

// declares reports whether a _test.go file of dir declares func name.
func declares(t *testing.T, dir, name string) bool {
	found := false
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found {
			return err
		}
		if d.IsDir() && p != dir {
			return fs.SkipDir
		}
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		found = err == nil && strings.Contains(string(b), "func "+name+"(")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}
