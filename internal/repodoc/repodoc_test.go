package repodoc

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const root = "../.."

// modulePath is the module's path from go.mod.
func modulePath(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b)
	if m == nil {
		t.Fatal("go.mod: no module line")
	}
	return string(m[1])
}

// packages maps each package directory of the tree (relative, slashes)
// to the module packages its non-test files import.
func packages(t *testing.T) map[string][]string {
	mod := modulePath(t)
	pkgs := map[string][]string{}
	seen := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "examples" || name == "docs") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		if seen[rel] == nil {
			seen[rel] = map[string]bool{}
			pkgs[rel] = nil
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if dep, ok := strings.CutPrefix(path, mod+"/"); ok && !seen[rel][dep] {
				seen[rel][dep] = true
				pkgs[rel] = append(pkgs[rel], dep)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// row is one line of design.md's package table.
type row struct {
	line     int
	allowAll bool
	allowed  map[string]bool
}

var ticked = regexp.MustCompile("`([^`]+)`")

// table reads docs/design.md's "One job per package" table: package ->
// its row.
func table(t *testing.T) map[string]row {
	b, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## One job per package")
	if start < 0 {
		t.Fatal(`docs/design.md: no section "One job per package"`)
	}
	firstLine := strings.Count(text[:start], "\n") + 1
	rows := map[string]row{}
	for i, line := range strings.Split(text[start:], "\n") {
		if i > 0 && strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cols := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cols) != 3 {
			t.Errorf("docs/design.md:%d: want 3 columns (package, job, may import), got %d", firstLine+i, len(cols))
			continue
		}
		r := row{line: firstLine + i, allowAll: cols[2] == "everything below", allowed: map[string]bool{}}
		for _, m := range ticked.FindAllStringSubmatch(cols[2], -1) {
			r.allowed[m[1]] = true
		}
		for _, m := range ticked.FindAllStringSubmatch(cols[0], -1) {
			if prev, dup := rows[m[1]]; dup {
				t.Errorf("docs/design.md:%d: %s has a row already (line %d)", r.line, m[1], prev.line)
			}
			rows[m[1]] = r
		}
	}
	return rows
}

// TestPackageTable checks docs/design.md's table against the tree: a row
// for every package, no row for a package that does not exist, and no
// import beyond a package's row, nor up the table.
func TestPackageTable(t *testing.T) {
	pkgs, rows := packages(t), table(t)
	for _, p := range sortedKeys(pkgs) {
		r, ok := rows[p]
		if !ok {
			t.Errorf("package %s has no row in docs/design.md's table \"One job per package\"", p)
			continue
		}
		for _, dep := range pkgs[p] {
			if !r.allowAll && !r.allowed[dep] {
				t.Errorf("%s imports %s, which its row (docs/design.md:%d) does not allow: add it there if the import is right", p, dep, r.line)
			}
			if d, ok := rows[dep]; ok && d.line < r.line {
				t.Errorf("%s (docs/design.md:%d) imports %s, whose row is above it (line %d): imports only go down the table; move one of the rows", p, r.line, dep, d.line)
			}
		}
	}
	for _, p := range sortedKeys(rows) {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("docs/design.md:%d: a row for %s, which is no package of the tree", rows[p].line, p)
		}
	}
}

// TestReadmeLayout checks the README's "Layout of the repository" names
// every package: a top-level one as a line "name/ ...", one under
// internal/ by its path below internal/ (or its parent's).
func TestReadmeLayout(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "## Layout of the repository")
	if start < 0 {
		t.Fatal(`README.md: no section "Layout of the repository"`)
	}
	block := text[start:]
	if end := strings.Index(block[3:], "\n## "); end >= 0 {
		block = block[:end+3]
	}
	for _, p := range sortedKeys(packages(t)) {
		if rest, ok := strings.CutPrefix(p, "internal/"); ok {
			for !strings.Contains(block, rest) && strings.Contains(rest, "/") {
				rest = rest[:strings.LastIndex(rest, "/")]
			}
			if !strings.Contains(block, rest) {
				t.Errorf("README.md's layout does not name %s (under internal/)", p)
			}
			continue
		}
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(p) + `/\s`).MatchString(block) {
			t.Errorf("README.md's layout has no line for %s/", p)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
