package repodoc

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/actctl/actctl/internal/testutil"
)

// runtimePackages are the packages that run agents (up's runtime, an
// employee's task, the ACP client and what they stand on); they import
// model, not schema, so that none of them links the CUE evaluator
// (docs/design.md, "One job per package").
var runtimePackages = []string{
	"./supervise", "./launch", "./tasklog", "./webhook", "./hooks",
	"./acpclient", "./runrecord", "./employee", "./up",
}

// TestRuntimeLinksNoCUE: no package the runtime packages depend on,
// directly or not, is one of cuelang.org's. It asks the go command, the
// one that knows the whole graph (the module's dependencies' imports
// too).
func TestRuntimeLinksNoCUE(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		testutil.Missing(t, "the go command is not on PATH: only it lists a package's dependencies across modules")
	}
	args := append([]string{"list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}"}, runtimePackages...)
	cmd := exec.Command(goCmd, args...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, " ")
		for _, dep := range strings.Fields(deps) {
			if strings.HasPrefix(dep, "cuelang.org/") {
				t.Errorf("%s links %s: import model rather than schema, or give it the plain value it needs", pkg, dep)
				break
			}
		}
	}
}
