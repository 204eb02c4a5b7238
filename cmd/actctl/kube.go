package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/actctl/actctl/control"
	"github.com/actctl/actctl/deploy"
	"github.com/actctl/actctl/internal/termsafe"
	"github.com/actctl/actctl/schema"
	"github.com/actctl/actctl/up"
	"github.com/actctl/actctl/workspace"
)

// The --kube flags (docs/runtime.md, "Remote control"): --kube is a
// switch, the context a flag of its own, since urfave/cli has no flag
// with an optional value and `--kube status` would read as a context
// named status. --kube comes first (checkKube).
var kubeFlags = []cli.Flag{
	&cli.BoolFlag{Name: "kube", Usage: "talk to the actctl up in the workspace's Kubernetes pod, through kubectl exec (status, logs, prompt, start, stop, restart, proxy --lease)"},
	&cli.StringFlag{Name: "kube-context", Usage: "with --kube: the kubeconfig `CONTEXT` (default: the current one)"},
	&cli.StringFlag{Name: "kube-namespace", Usage: "with --kube: the pod's `NAMESPACE` (default: deploy.kubernetes.namespace, else the context's)"},
	&cli.StringFlag{Name: "kube-pod", Usage: "with --kube: the `POD` (default: actctl-WORKSPACE-0, WORKSPACE deploy.kubernetes.name, else the root directory's name)"},
	&cli.StringFlag{Name: "kube-container", Usage: "with --kube: the pod's `CONTAINER` (default: kubectl's)"},
	&cli.StringFlag{Name: "kube-workdir", Value: deploy.WorkspaceDir, Usage: "with --kube: the workspace root `DIR` in the pod"},
}

// kubeCommands are the commands --kube goes with: those that only talk to
// up (proxy only with --lease, checked by proxy).
var kubeCommands = map[string]bool{"status": true, "logs": true, "prompt": true, "start": true, "stop": true, "restart": true, "proxy": true, "help": true}

// kubeFlagFits reports whether flag f may be offered to complete cmd's
// flags: a --kube flag only for a command that goes with --kube (or before
// any command).
func kubeFlagFits(f cli.Flag, cmd *cli.Command) bool {
	return cmd == nil || kubeCommands[cmd.Name] || !strings.HasPrefix(f.Names()[0], "kube")
}

// kubeOpts are the --kube flags as given.
type kubeOpts struct {
	On                                          bool
	Context, Namespace, Pod, Container, Workdir string
}

func kubeOf(c *cli.Context) kubeOpts {
	return kubeOpts{On: c.Bool("kube"), Context: c.String("kube-context"), Namespace: c.String("kube-namespace"),
		Pod: c.String("kube-pod"), Container: c.String("kube-container"), Workdir: c.String("kube-workdir")}
}

// checkKube refuses --kube-* flags without --kube, and --kube with a
// command that works on this machine only (c is the app's context:
// its first argument is the command).
func checkKube(c *cli.Context) error {
	if !c.Bool("kube") {
		for _, f := range kubeFlags[1:] {
			if n := f.Names()[0]; c.IsSet(n) {
				return usageError("--%s goes with --kube", n)
			}
		}
		return nil
	}
	if cmd := c.Args().First(); cmd != "" && !kubeCommands[cmd] {
		return usageError("--kube: %s works on this machine only; --kube goes with status, logs, prompt, start, stop, restart and proxy --lease", cmd)
	}
	return nil
}

// dialUp connects to the workspace's up: on this machine, or with --kube
// through kubectl exec into its pod (control.Connect).
func dialUp(ctx context.Context, g *globals) (*control.Client, error) {
	t, err := upTarget(g)
	if err != nil {
		return nil, err
	}
	cl, err := control.Connect(ctx, t)
	if t.Kube != nil && errors.Is(err, control.ErrNoUp) {
		return nil, kubeNoUp(t.Kube)
	}
	return cl, err
}

// kubeNoUp is ErrNoUp about a pod: control.ErrNoUp's advice (start
// `actctl up`) would start one on this machine; the pod's container runs
// it, so its logs say why it does not run.
func kubeNoUp(k *control.Kube) error {
	logs := []string{"kubectl"}
	if k.Context != "" {
		logs = append(logs, "--context", k.Context)
	}
	if k.Namespace != "" {
		logs = append(logs, "-n", k.Namespace)
	}
	logs = append(logs, "logs", k.Pod)
	if k.Container != "" {
		logs = append(logs, "-c", k.Container)
	}
	return noUpError(fmt.Sprintf("--kube: no actctl up is running in pod %s (workspace %s): the pod's container runs it; see `%s`", k.Pod, k.Workdir, strings.Join(logs, " ")))
}

// noUpError is control.ErrNoUp in other words (errors.Is still finds it).
type noUpError string

func (e noUpError) Error() string { return string(e) }
func (e noUpError) Unwrap() error { return control.ErrNoUp }

// upTarget is where the workspace's up is.
func upTarget(g *globals) (control.Target, error) {
	if !g.Kube.On {
		root, err := upRoot(g)
		return control.Target{Root: root}, err
	}
	k := &control.Kube{Context: g.Kube.Context, Namespace: g.Kube.Namespace, Pod: g.Kube.Pod,
		Container: g.Kube.Container, Workdir: g.Kube.Workdir}
	if k.Pod == "" || k.Namespace == "" {
		if err := kubeDefaults(g, k); err != nil {
			return control.Target{}, err
		}
	}
	return control.Target{Kube: k}, nil
}

// kubeDefaults fills the pod (and the namespace when not given) from the
// workspace's deploy.kubernetes, as apply renders its StatefulSet
// (workspace.KubeWorkspaceName): named after deploy.kubernetes.name, else
// the repository the pods clone (its repo, else the remote "origin"),
// never the local directory; without that block, the namespace is the
// context's.
func kubeDefaults(g *globals, k *control.Kube) error {
	root, err := upRoot(g)
	if err != nil {
		if k.Pod != "" {
			return nil // the context's namespace
		}
		return fmt.Errorf("--kube: the default pod is named after the workspace (or give --kube-pod): %w", err)
	}
	var dk *schema.DeployKubernetes
	cfg, err := g.Load()
	if err != nil {
		g.Warn("--kube: the pod is named after the remote \"origin\": %v", err)
	} else if cfg.Deploy != nil && cfg.Deploy.Kubernetes != nil {
		dk = cfg.Deploy.Kubernetes
		if k.Namespace == "" {
			k.Namespace = dk.Namespace
		}
	}
	if k.Pod == "" {
		ws := workspace.KubeWorkspaceName(root, dk)
		if ws == "" {
			return usageError("--kube: the default pod is named after deploy.kubernetes.name, else the repository's remote \"origin\", and this workspace has neither: give --kube-pod")
		}
		k.Pod = "actctl-" + ws + "-0"
	}
	return nil
}

// kubeStatus is `status --kube`: the agents the pod's up holds, as up
// sees them; the files' sync status is the pod's and is not shown
// (docs/runtime.md, "Remote control").
func kubeStatus(g *globals, only []string) error {
	ctx, cancel := runContext(0)
	defer cancel()
	var sts []up.AgentStatus
	if err := callUp(ctx, g, control.Request{Op: control.OpStatus}, nil, &sts); err != nil {
		return err
	}
	sts, err := onlyAgents(sts, only)
	if err != nil {
		return err
	}
	if g.JSON() {
		if sts == nil {
			sts = []up.AgentStatus{}
		}
		return g.PrintJSON(sts)
	}
	tw := tabwriter.NewWriter(g.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPROCESS")
	for _, st := range sts {
		p := &processJSON{Status: string(st.State), PID: st.Pid, Up: &st}
		proc := p.Status
		if p.PID != 0 {
			proc = fmt.Sprintf("%s pid %d", proc, p.PID)
		}
		fmt.Fprintf(tw, "%s\t%s\n", termsafe.Line(st.Name), termsafe.Line(proc+p.upDetails()))
	}
	return tw.Flush()
}

// onlyAgents keeps the agents of sts named in only (all when it is
// empty); a name up does not hold is an error.
func onlyAgents(sts []up.AgentStatus, only []string) ([]up.AgentStatus, error) {
	if len(only) == 0 {
		return sts, nil
	}
	by := map[string]up.AgentStatus{}
	for _, st := range sts {
		by[st.Name] = st
	}
	var out []up.AgentStatus
	for _, n := range only {
		st, ok := by[n]
		if !ok {
			return nil, fmt.Errorf("status: the pod's actctl up holds no agent %q", n)
		}
		out = append(out, st)
	}
	return out, nil
}

// kubeLogs is `logs --kube`: the pod's up reads the task log and sends
// its lines (up.Manager.Logs), printed as `logs` prints them here.
func kubeLogs(c *cli.Context) error {
	g := globalsOf(c)
	if c.NArg() != 1 {
		return usageError("logs: want exactly one AGENT")
	}
	if c.IsSet("task") && c.Uint64("task") == 0 {
		return usageError("logs: --task: task ids start at 1")
	}
	agent := c.Args().First()
	req := control.Request{Op: control.OpLogs, Agent: agent, Task: c.Uint64("task"), Follow: c.Bool("follow")}
	var fn func([]byte)
	s := &summaryPrinter{g: g, path: agent + "'s actctl.log in the pod"}
	if req.Task != 0 {
		fn = func(l []byte) { g.Stdout.Write(append(append([]byte(nil), l...), '\n')) }
		if !g.JSON() {
			tr := newTaskRenderer(g.Stdout)
			fn = tr.line
			defer tr.end()
		}
	} else {
		fn = s.line
	}
	ctx, _, stop := onSignals(cancelPolicy)
	defer stop()
	err := callUp(ctx, g, req, func(f control.Frame) {
		var line string
		switch {
		case f.Kind == "missing":
			fmt.Fprintf(g.Stderr, "no tasks logged for %s yet (tasks are logged by actctl up)\n", agent)
		case f.Kind == "line" && json.Unmarshal(f.Data, &line) == nil:
			fn([]byte(line))
		}
	}, nil)
	if req.Follow && ctx.Err() != nil {
		return nil // following ends by being interrupted
	}
	if err != nil {
		return err
	}
	return s.err
}
