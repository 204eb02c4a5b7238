package deploy

import (
	"bytes"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/actctl/actctl/schema"
)

// A change of an employee's Kubernetes shape (resident <-> cron) moves
// it between volumes: its .heartbeat and task logs stay on the one it
// leaves. apply and diff say so at the file that changes, with the
// commands that carry them over (docs/deploy.md, "Changing an
// employee's shape"); ShapeMove words it.

// CronFileAgent is the employee whose CronJobs the file rel (slash
// separated, relative to the root) holds under the Kubernetes directory
// dir: "deploy/k8s/cron-triage.yaml" is triage's.
func CronFileAgent(dir, rel string) (string, bool) {
	d, f := path.Split(rel)
	if path.Clean(d) != path.Clean(dir) {
		return "", false
	}
	name, ok := strings.CutPrefix(f, "cron-")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(name, ".yaml")
}

// UpAgents reads the agents the StatefulSet of a rendered workspace.yaml
// runs: those its `up` names, or all (every resident agent of that
// config) when it names none; ok is false when the file holds no
// StatefulSet.
func UpAgents(workspaceYAML []byte) (names []string, all, ok bool) {
	for _, doc := range bytes.Split(workspaceYAML, []byte("\n---\n")) {
		var o struct {
			Kind string
			Spec struct {
				Template struct {
					Spec struct {
						Containers []struct {
							Name string
							Args []string
						}
					}
				}
			}
		}
		if yaml.Unmarshal(doc, &o) != nil || o.Kind != "StatefulSet" {
			continue
		}
		for _, c := range o.Spec.Template.Spec.Containers {
			if c.Name != "up" {
				continue
			}
			i := slices.Index(c.Args, "--frozen")
			if i < 0 {
				return nil, false, false
			}
			for rest := c.Args[i+1:]; len(rest) > 0; rest = rest[1:] {
				if rest[0] == "--webhooks" {
					rest = rest[1:]
					continue
				}
				names = append(names, rest[0])
			}
			return names, len(names) == 0, true
		}
	}
	return nil, false, false
}

// ShapeMove is the plan's entry for employee name moving to shape
// (schema.ShapeCron or ShapeResident) in the workspace ws
// (WorkspaceName) of namespace ns: the volume it leaves and the one it
// goes to, and the commands that carry its .heartbeat and task logs
// over. apply cannot: it never talks to the cluster, and the rendered
// files cannot copy between a claim and a volume only one pod may mount
// (docs/deploy.md, "Changing an employee's shape").
func ShapeMove(ws, ns, name, shape string) string {
	pod := "actctl-" + ws + "-0"
	sts := "data-" + pod
	claim := kname(maxCronJobName, "actctl-"+ws, name)
	inst := actantHome + "/instances/" + name
	tar := "tar -C " + actantHome + "/instances"
	file := name + "-state.tar"
	k := "kubectl -n " + ns
	const doc = ` (docs/deploy.md, "Changing an employee's shape")`
	if shape == schema.ShapeCron {
		return "employee " + name + " moves from the StatefulSet to CronJobs with their own claim " + claim +
			": its .heartbeat and task logs stay on the StatefulSet's volume " + sts + " (" + inst + ")" +
			", and it starts from its seed .heartbeat; to carry them over: " +
			k + " exec " + pod + " -c up -- " + tar + " -cf - " + name + " > " + file +
			", then, before its first Job, from a pod that mounts " + claim + doc + ": " +
			k + " exec -i POD -- " + tar + " -xf - < " + file
	}
	return "employee " + name + " moves from its CronJobs to the StatefulSet: its .heartbeat and task logs stay on its claim " + claim +
		" (" + inst + "), which a GitOps prune of this file deletes, and it starts from its seed .heartbeat; to carry them over, before the change is applied, from a pod that mounts " +
		claim + doc + ": " + k + " exec POD -- " + tar + " -cf - " + name + " > " + file +
		", then, once the StatefulSet runs it: " + k + " exec -i " + pod + " -c up -- " + tar + " -xf - < " + file
}
