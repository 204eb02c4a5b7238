package repodoc

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// protocolLibraries are the modules that speak ACP and MCP: packages
// acpclient, proxy, up and mcpserver use them, and give the command line
// the types it prints (docs/design.md, "One job per package").
var protocolLibraries = []string{"github.com/coder/acp-go-sdk", "github.com/modelcontextprotocol/go-sdk"}

// TestCLIImportsNoProtocolLibrary: cmd/actctl's non-test files import
// neither the ACP nor the MCP library.
func TestCLIImportsNoProtocolLibrary(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "cmd", "actctl", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			for _, lib := range protocolLibraries {
				if path == lib || strings.HasPrefix(path, lib+"/") {
					t.Errorf("%s imports %s: give the package below the type it needs", filepath.Base(p), path)
				}
			}
		}
	}
}
