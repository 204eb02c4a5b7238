package reconcile

import (
	"path"
	"slices"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/actctl/actctl/deploy"
	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// deployTargets renders the config's deploy: targets (package deploy) as
// targets of owners named deploy.OwnerPrefix + target, one whole file per
// rendered file in the workspace root: the plan writes, updates, prunes
// and reports drift on them as on an agent's files (docs/deploy.md,
// "Rendered files"). Nil when the config declares no target.
func deployTargets(cfg *schema.Config) ([]*materialize.Target, error) {
	if cfg.Deploy == nil {
		return nil, nil
	}
	o, err := deployOptions(cfg)
	if err != nil {
		return nil, err
	}
	outs, err := deploy.Render(cfg, o)
	if err != nil {
		return nil, err
	}
	targets := make([]*materialize.Target, 0, len(outs))
	for _, out := range outs {
		if len(out.Files) == 0 {
			continue // a target with no employee to run: no record either
		}
		t := &materialize.Target{Agent: out.Owner(), Dir: cfg.Root, Conflict: "error"}
		for _, f := range out.Files {
			t.Entries = append(t.Entries, materialize.Entry{Path: f.Path, Mode: materialize.ModeFile, Content: f.Content})
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// CheckDeploy refuses, at its position, a deploy: target apply would
// refuse for what the workspace's repository lacks: a Kubernetes target
// without repo in a repository without a remote "origin". validate calls
// it so that it passes only what apply takes (docs/deploy.md).
func CheckDeploy(cfg *schema.Config) error {
	if cfg.Deploy == nil {
		return nil
	}
	_, err := deployOptions(cfg)
	return err
}

// deployOptions are the options deploy.Render takes for cfg: the
// Kubernetes target's default repository from the workspace's git remote.
func deployOptions(cfg *schema.Config) (deploy.Options, error) {
	o := deploy.Options{Now: time.Now()}
	if k := cfg.Deploy.Kubernetes; k != nil && k.Repo == nil {
		if o.Repo = originRepo(cfg.Root); o.Repo == nil {
			// Positioned, as the schema's refusals are (docs/deploy.md).
			return o, schema.Diagnostics{cfg.Diag("deploy.kubernetes", "no repository for the pods to clone: give deploy.kubernetes.repo {url, ref}, or add a git remote \"origin\" to the workspace's repository")}
		}
	}
	return o, nil
}

// KubeWorkspaceName is the workspace's name in the cluster as apply
// renders it (deploy.WorkspaceName): k's name, else the last element of
// the repository the pods clone (k's repo, else the remote "origin" of
// the repository holding root); "" when there is none. k may be nil.
func KubeWorkspaceName(root string, k *schema.DeployKubernetes) string {
	switch {
	case k != nil && k.Name != "":
		return deploy.WorkspaceName(k.Name, "")
	case k != nil && k.Repo != nil:
		return deploy.WorkspaceName("", k.Repo.URL)
	}
	if r := originRepo(root); r != nil {
		return deploy.WorkspaceName("", r.URL)
	}
	return ""
}

// originRepo is the repository the workspace's pods clone by default:
// the URL of the git remote "origin" of the repository holding root, at
// the branch checked out; nil without one.
func originRepo(root string) *schema.DeployRepo {
	repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil
	}
	rem, err := repo.Remote("origin")
	if err != nil || len(rem.Config().URLs) == 0 {
		return nil
	}
	ref := "main"
	if head, err := repo.Head(); err == nil && head.Name().IsBranch() {
		ref = head.Name().Short()
	}
	return &schema.DeployRepo{URL: rem.Config().URLs[0], Ref: ref}
}

// shapeNotes are warnings at the Kubernetes files of the employees whose
// shape the plan ops change (a cron-<employee>.yaml created while the
// StatefulSet it replaces ran the employee, or deleted while the
// employee stays on Kubernetes, resident): the volume an employee leaves
// keeps its .heartbeat and task logs, and the warning gives the
// commands that carry them over (deploy.ShapeMove).
func shapeNotes(cfg *schema.Config, ops []*Op) []Note {
	if cfg.Deploy == nil || cfg.Deploy.Kubernetes == nil {
		return nil
	}
	k := cfg.Deploy.Kubernetes
	dir := path.Clean(k.Dir)
	var up []string
	upAll, upOK := false, false
	for _, op := range ops {
		if op.Rel == path.Join(dir, "workspace.yaml") && op.Exists {
			up, upAll, upOK = deploy.UpAgents(op.Old)
		}
	}
	var notes []Note
	for _, op := range ops {
		name, ok := deploy.CronFileAgent(dir, op.Rel)
		if !ok {
			continue
		}
		r, err := cfg.Resolve(name)
		if err != nil || !r.Agent.RunsOn(schema.TargetKubernetes, r.ArchetypeName) {
			continue
		}
		shape := r.Agent.KubeShape()
		moved := op.Action == ActDelete && shape == schema.ShapeResident ||
			op.Action == ActCreate && !op.Exists && shape == schema.ShapeCron && upOK && (upAll || slices.Contains(up, name))
		if moved {
			notes = append(notes, Note{Rel: op.Rel, Action: ActWarning, Agent: deploy.OwnerPrefix + schema.TargetKubernetes,
				Reason: deploy.ShapeMove(KubeWorkspaceName(cfg.Root, k), k.Namespace, name, shape)})
		}
	}
	return notes
}
