//go:build linux

package realengines

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// KCPVersion is the Kubernetes release the tier's control plane is
// built from (internal/realengines/kcp).
const KCPVersion = "v1.34.4"

// kcpBinary is the control-plane binary internal/realengines/kcp/build.sh
// builds into the cache directory.
// ACTCTL_KCP=off leaves the Kubernetes part out, in CI as well (.ci/run
// does so when no binary is cached and none was asked for).
func kcpBinary(t *testing.T) string {
	t.Helper()
	if os.Getenv("ACTCTL_KCP") == "off" {
		t.Skip("ACTCTL_KCP=off: the Kubernetes part of the tier is left out")
	}
	cache := os.Getenv("ACTCTL_KCP_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "actctl-kcp")
	}
	p := filepath.Join(cache, KCPVersion, "kcp")
	if !isExec(p) {
		missing(t, "no control plane at %s: build it once with internal/realengines/kcp/build.sh (about 18 minutes on 2 cores)", p)
	}
	return p
}

// cluster is a Kubernetes control plane on loopback: etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler, without a
// kubelet (no container ever runs).
type cluster struct {
	dir, kubeconfig, kubectl string
	procs                    []*component
}

// component is one running process of the control plane.
type component struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
}

// freePort returns a loopback port nothing listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// startCluster starts the control plane; it is stopped when the test
// ends.
func startCluster(t *testing.T, ctx context.Context) *cluster {
	t.Helper()
	kcp, kubectl := kcpBinary(t), tool(t, "kubectl")
	c := &cluster{dir: t.TempDir(), kubectl: kubectl}
	t.Cleanup(c.stop)
	token := randomHex(t)
	saKey := filepath.Join(c.dir, "sa.key")
	writeRSAKey(t, saKey)
	writeFile(t, c.dir, "tokens.csv", token+`,admin,admin-uid,"system:masters"`+"\n")
	etcdPort, peerPort, metricsPort, apiPort := freePort(t), freePort(t), freePort(t), freePort(t)
	etcdURL := "http://127.0.0.1:" + etcdPort
	c.start(t, kcp, "etcd", nil, "--name", "default", "--data-dir", filepath.Join(c.dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", "http://127.0.0.1:"+peerPort, "--initial-advertise-peer-urls", "http://127.0.0.1:"+peerPort,
		"--initial-cluster", "default=http://127.0.0.1:"+peerPort, "--listen-metrics-urls", "http://127.0.0.1:"+metricsPort)
	serving := make(chan struct{})
	c.start(t, kcp, "kube-apiserver", lineSignal("Serving securely on", serving),
		"--etcd-servers", etcdURL, "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", apiPort, "--cert-dir", filepath.Join(c.dir, "apiserver"),
		"--token-auth-file", filepath.Join(c.dir, "tokens.csv"), "--authorization-mode", "RBAC,Node",
		"--service-account-issuer", "https://kubernetes.default.svc", "--service-account-key-file", saKey,
		"--service-account-signing-key-file", saKey, "--service-cluster-ip-range", "10.96.0.0/16",
		"--allow-privileged=false")
	select {
	case <-serving:
	case <-ctx.Done():
		t.Fatalf("kube-apiserver did not serve: %v\n%s", ctx.Err(), c.logs())
	}
	c.kubeconfig = filepath.Join(c.dir, "kubeconfig")
	writeFile(t, c.dir, "kubeconfig", `apiVersion: v1
kind: Config
clusters: [{name: kcp, cluster: {server: "https://127.0.0.1:`+apiPort+`", insecure-skip-tls-verify: true}}]
users: [{name: admin, user: {token: "`+token+`"}}]
contexts: [{name: kcp, context: {cluster: kcp, user: admin}}]
current-context: kcp
`)
	c.start(t, kcp, "kube-controller-manager", nil, "--kubeconfig", c.kubeconfig, "--leader-elect=false", "--secure-port", "0",
		"--controllers", "cronjob-controller,job-controller,statefulset-controller,ttl-after-finished-controller,garbage-collector-controller,serviceaccount-controller,resourcequota-controller,persistentvolume-binder-controller",
		"--service-account-private-key-file", saKey, "--use-service-account-credentials=false")
	c.start(t, kcp, "kube-scheduler", nil, "--kubeconfig", c.kubeconfig, "--leader-elect=false", "--secure-port", "0")
	// The bootstrap controller makes the namespace "default" once the
	// apiserver's start-up hooks ran: watched, not polled.
	c.kubectlRun(t, ctx, "wait", "--for=create", "namespace/default", "--timeout=5m")
	return c
}

// start starts one component, its output in dir/<name>.log and, when
// tap is given, line by line to tap as well.
func (c *cluster) start(t *testing.T, kcp, name string, tap func(string), args ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(c.dir, name+".log"))
	if err != nil {
		t.Fatal(err)
	}
	p := &component{name: name, cmd: exec.Command(kcp, append([]string{name}, args...)...), done: make(chan struct{})}
	var out io.Writer = log
	var pw *io.PipeWriter
	if tap != nil {
		var pr *io.PipeReader
		pr, pw = io.Pipe()
		out = io.MultiWriter(log, pw)
		go func() {
			sc := bufio.NewScanner(pr)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			for sc.Scan() {
				tap(sc.Text())
			}
			io.Copy(io.Discard, pr)
		}()
	}
	p.cmd.Stdout, p.cmd.Stderr = out, out
	p.cmd.Dir = c.dir
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		p.cmd.Wait()
		log.Close()
		if pw != nil {
			pw.Close()
		}
		close(p.done)
	}()
	c.procs = append(c.procs, p)
}

// lineSignal is a tap closing ch at the first line containing text.
func lineSignal(text string, ch chan struct{}) func(string) {
	var once sync.Once
	return func(line string) {
		if strings.Contains(line, text) {
			once.Do(func() { close(ch) })
		}
	}
}

// stop stops the components in reverse order: SIGTERM, then SIGKILL past
// the guard.
func (c *cluster) stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		p := c.procs[i]
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-contextDone(guard):
			p.cmd.Process.Kill()
			<-p.done
		}
	}
}

// logs is the tail of every component's log, for a failure message.
func (c *cluster) logs() string {
	var b strings.Builder
	for _, p := range c.procs {
		data, _ := os.ReadFile(filepath.Join(c.dir, p.name+".log"))
		if len(data) > 4000 {
			data = data[len(data)-4000:]
		}
		fmt.Fprintf(&b, "== %s (%v)\n%s\n", p.name, p.cmd.ProcessState, data)
	}
	return b.String()
}

// kubectlRun runs kubectl against the cluster; a failure fails the test.
func (c *cluster) kubectlRun(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	out, err := c.kubectlErr(ctx, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (c *cluster) kubectlErr(ctx context.Context, args ...string) (string, error) {
	return runErr(ctx, "", append(os.Environ(), "KUBECONFIG="+c.kubeconfig), c.kubectl, args...)
}

// randomHex is a random token.
func randomHex(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// writeRSAKey writes a new RSA private key (PKCS#1 PEM) at path: the
// service accounts' signing key, whose public half the apiserver reads
// from the same file.
func writeRSAKey(t *testing.T, path string) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	b := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
