// Command kcp is one binary holding a Kubernetes control plane for the
// real-engine test tier (docs/testing-runtime.md): its first argument picks
// etcd, kube-apiserver, kube-controller-manager or kube-scheduler, and the
// remaining arguments are that component's own flags.
//
// It lives in its own module so the actctl module never requires
// k8s.io/kubernetes; build it with internal/realengines/kcp/build.sh.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"go.etcd.io/etcd/server/v3/etcdmain"
	"k8s.io/component-base/cli"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: kcp etcd|kube-apiserver|kube-controller-manager|kube-scheduler [flags]")
		os.Exit(2)
	}
	name, args := os.Args[1], os.Args[2:]
	if name == "etcd" {
		etcdmain.Main(append([]string{"etcd"}, args...))
		return
	}
	cmd := command(name)
	if cmd == nil {
		fmt.Fprintf(os.Stderr, "kcp: unknown component %q\n", name)
		os.Exit(2)
	}
	cmd.SetArgs(args)
	os.Exit(cli.Run(cmd))
}

// command returns the cobra command of a Kubernetes component, or nil.
func command(name string) *cobra.Command {
	switch name {
	case "kube-apiserver":
		return apiserver.NewAPIServerCommand()
	case "kube-controller-manager":
		return controllermanager.NewControllerManagerCommand()
	case "kube-scheduler":
		return scheduler.NewSchedulerCommand()
	}
	return nil
}
