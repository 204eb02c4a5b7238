package deploy

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestUpAgents reads the agents a rendered StatefulSet's up runs (named,
// or all when it names none, past --webhooks and its address), and
// CronFileAgent the employee of a CronJob file.
func TestUpAgents(t *testing.T) {
	outs := renderTeam(t)
	var ws []byte
	for _, f := range outs[0].Files {
		if f.Path == "deploy/k8s/workspace.yaml" {
			ws = f.Content
		}
		if name, ok := CronFileAgent("deploy/k8s/", f.Path); ok != (f.Path == "deploy/k8s/cron-triage.yaml") || ok && name != "triage" {
			t.Errorf("CronFileAgent(%s) = %q, %v", f.Path, name, ok)
		}
	}
	if names, all, ok := UpAgents(ws); !ok || all || !slices.Equal(names, []string{"report", "review"}) {
		t.Errorf("UpAgents = %v, %v, %v; want [report review]", names, all, ok)
	}
	if _, _, ok := UpAgents([]byte("kind: ServiceAccount\n")); ok {
		t.Error("UpAgents found a StatefulSet in a ServiceAccount")
	}
	if _, ok := CronFileAgent("deploy/k8s", "other/cron-x.yaml"); ok {
		t.Error("CronFileAgent took a file of another directory")
	}
}

// TestShapeMoveCarries: the plan entry of a shape change gives the
// commands that carry the employee's .heartbeat and task logs from the
// volume it leaves to the one it goes to; run as written (POD: a pod
// that mounts the claim) against a stand-in kubectl whose exec runs in
// a directory per pod, they carry both, both ways.
func TestShapeMoveCarries(t *testing.T) {
	root := t.TempDir()
	kubectl := "#!/bin/bash\nset -eu\n[ \"$1\" = -n ] && shift 2\n[ \"$1\" = exec ] && shift\n[ \"$1\" = -i ] && shift\npod=$1; shift\n[ \"$1\" = -c ] && shift 2\n[ \"$1\" = -- ] && shift\nargs=(\"${@//\\/data\\/actant/$PODS/$pod/actant}\")\nexec \"${args[@]}\"\n"
	if err := os.WriteFile(filepath.Join(root, "kubectl"), []byte(kubectl), 0o755); err != nil {
		t.Fatal(err)
	}
	for shape, pods := range map[string][2]string{schema.ShapeCron: {"actctl-team-0", "POD"}, schema.ShapeResident: {"POD", "actctl-team-0"}} {
		msg := ShapeMove("team", "agents", "triage", shape)
		if !strings.Contains(msg, "kubectl -n agents exec") || !strings.Contains(msg, "Changing an employee's shape") {
			t.Fatalf("%s: %s", shape, msg)
		}
		from, to := filepath.Join(root, shape, pods[0], "actant/instances/triage"), filepath.Join(root, shape, pods[1], "actant/instances")
		writeState(t, from)
		if err := os.MkdirAll(to, 0o700); err != nil {
			t.Fatal(err)
		}
		cmds := regexp.MustCompile(`kubectl [^,]*triage-state\.tar`).FindAllString(msg, -1)
		if len(cmds) != 2 {
			t.Fatalf("%s: want two commands, an export and an import:\n%s", shape, msg)
		}
		for _, c := range cmds {
			cmd := exec.Command("bash", "-eo", "pipefail", "-c", c)
			cmd.Dir = filepath.Join(root, shape)
			cmd.Env = append(os.Environ(), "PATH="+root+":"+os.Getenv("PATH"), "PODS="+filepath.Join(root, shape))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %s: %v\n%s", shape, c, err, out)
			}
		}
		for _, f := range []string{".heartbeat", "logs/tasks/1.jsonl"} {
			if b, err := os.ReadFile(filepath.Join(to, "triage", f)); err != nil || string(b) != f {
				t.Errorf("%s: %s not carried over (%q, %v) by:\n%s", shape, f, b, err, msg)
			}
		}
	}
}

// writeState writes an employee's .heartbeat and a task log in dir.
func writeState(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{".heartbeat", "logs/tasks/1.jsonl"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
