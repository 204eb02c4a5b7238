package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/actctl/actctl/internal/tail"
)

// Kube is a workspace's actctl up running in a Kubernetes pod, reached
// through `kubectl exec -i` and the pod's `actctl control-relay`
// (docs/runtime.md, "Remote control"): no client library, no new port,
// only the RBAC verb pods/exec.
type Kube struct {
	Kubectl   string // the kubectl command; "" is "kubectl" found in PATH
	Context   string // kubeconfig context; "" is the current one
	Namespace string // "" is the context's namespace
	Pod       string
	Container string // "" is the pod's default container
	Workdir   string // the workspace root inside the pod
}

// Args is kubectl's command line after the command name:
// [--context C] [-n NS] exec -i POD [-c CONTAINER] -- actctl control-relay -C WORKDIR.
func (k Kube) Args() []string {
	var a []string
	if k.Context != "" {
		a = append(a, "--context", k.Context)
	}
	if k.Namespace != "" {
		a = append(a, "-n", k.Namespace)
	}
	a = append(a, "exec", "-i", k.Pod)
	if k.Container != "" {
		a = append(a, "-c", k.Container)
	}
	return append(a, "--", "actctl", RelayCommand, "-C", k.Workdir)
}

// RelayCommand is the hidden actctl command that joins its stdin and
// stdout to the workspace's control socket (Relay).
const RelayCommand = "control-relay"

// kubectlHint ends every error of a failed kubectl.
const kubectlHint = "check the context, namespace and pod (--kube-context, --kube-namespace, --kube-pod) and that you may create pods/exec there"

// Target is where the control commands' actctl up is: the workspace at
// Root on this machine or, when Kube is set, a pod.
type Target struct {
	Root string
	Kube *Kube
}

// Connect is the one way the commands reach up: Dial for a workspace on
// this machine, a relay through kubectl exec for a pod. ErrNoUp, as
// Dial's, when no up runs there.
func Connect(ctx context.Context, t Target) (*Client, error) {
	if t.Kube == nil {
		return Dial(t.Root)
	}
	return dialKube(ctx, *t.Kube)
}

// dialKube starts kubectl exec and waits for the relay's greeting; any
// failure kills and reaps kubectl before it returns.
func dialKube(ctx context.Context, k Kube) (*Client, error) {
	name := k.Kubectl
	if name == "" {
		name = "kubectl"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil, fmt.Errorf("--kube needs kubectl: %s is not in PATH; install it (https://kubernetes.io/docs/tasks/tools/) or put it in PATH", name)
	}
	c, err := startKubectl(path, k.Args())
	if err != nil {
		return nil, err
	}
	stop := context.AfterFunc(ctx, func() { c.Close() })
	err = c.greeting()
	stop()
	if err != nil {
		c.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return &Client{conn: c}, nil
}

// kubeConn is kubectl's stdio as a connection: reads from its stdout,
// writes to its stdin. When kubectl ends with an error, reading and
// writing give a *KubectlError with the tail of its stderr.
type kubeConn struct {
	cmd    *exec.Cmd
	line   string // the command line, for errors
	stdin  io.WriteCloser
	out    *os.File // kubectl's stdout, ours to close
	stdout *bufio.Reader
	stderr *tail.Buffer
	once   sync.Once
	waited chan struct{}
	err    error // kubectl's end, once waited is closed
}

// startKubectl starts kubectl with args, its stdio piped.
func startKubectl(path string, args []string) (*kubeConn, error) {
	cmd := exec.Command(path, args...)
	cmd.WaitDelay = waitDelay
	ownGroup(cmd)
	c := &kubeConn{cmd: cmd, line: "kubectl " + strings.Join(args, " "), stderr: tail.New(maxTail), waited: make(chan struct{})}
	cmd.Stderr = c.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("kubectl exec: %w", err)
	}
	// Our own pipe, not StdoutPipe: Wait would close that one and lose
	// what kubectl wrote before it ended.
	out, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("kubectl exec: %w", err)
	}
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		in.Close()
		out.Close()
		return nil, fmt.Errorf("kubectl exec: start %s: %w", path, err)
	}
	c.stdin, c.out, c.stdout = in, out, bufio.NewReader(out)
	go func() { c.err = cmd.Wait(); close(c.waited) }()
	return c, nil
}

// greeting reads the relay's first line (RelayHello): ErrNoUp or the
// relay's error when it could not reach up.
func (c *kubeConn) greeting() error {
	line, err := readLine(c.stdout, maxGreeting)
	if err != nil {
		var ke *KubectlError
		if err = c.failure(err); errors.As(err, &ke) {
			return ke
		}
		return fmt.Errorf("%s: ended before the pod's actctl answered: %w; %s", c.line, err, kubectlHint)
	}
	var h RelayHello
	if err := json.Unmarshal(line, &h); err != nil || h.Relay != relayName {
		return fmt.Errorf("%s: the pod's actctl did not answer as a control relay: %q", c.line, firstLine(line))
	}
	switch {
	case h.NoUp:
		return ErrNoUp
	case h.Error != "":
		return fmt.Errorf("actctl up in pod: %s", h.Error)
	}
	return nil
}

func (c *kubeConn) Read(p []byte) (int, error) {
	n, err := c.stdout.Read(p)
	if err != nil {
		err = c.failure(err)
	}
	return n, err
}

func (c *kubeConn) Write(p []byte) (int, error) {
	n, err := c.stdin.Write(p)
	if err != nil {
		err = c.failure(err)
	}
	return n, err
}

// Close closes kubectl's stdin, kills it and waits for it: it never
// outlives the connection.
func (c *kubeConn) Close() error {
	c.once.Do(func() {
		c.stdin.Close()
		_ = c.cmd.Process.Kill()
		<-c.waited
		c.out.Close()
	})
	return nil
}

// failure is err, or once kubectl has ended with an error, that error
// with the tail of its stderr: the read or write failed because kubectl
// did.
func (c *kubeConn) failure(err error) error {
	<-c.waited
	var ee *exec.ExitError
	if !errors.As(c.err, &ee) || !ee.Exited() {
		return err // still our own kill, or kubectl ended well
	}
	return &KubectlError{Command: c.line, Err: c.err, Stderr: c.stderr.Raw()}
}

// KubectlError is a kubectl exec that failed: its command line, exit and
// the end of what it wrote to stderr.
type KubectlError struct {
	Command string
	Err     error
	Stderr  string
}

func (e *KubectlError) Error() string {
	msg := fmt.Sprintf("kubectl exec failed (%s): %v", e.Command, e.Err)
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += ": " + s
	}
	return msg + "; " + kubectlHint
}

func (e *KubectlError) Unwrap() error { return e.Err }

// readLine reads one line of at most max bytes, without its newline.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > max {
			return nil, fmt.Errorf("a line longer than %d bytes", max)
		}
		if err == nil {
			return line[:len(line)-1], nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return nil, err
		}
	}
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// waitDelay bounds how long kubectl's stderr may stay open once it has
// ended (a child of it holding it).
const waitDelay = 5 * time.Second

// maxTail bounds the stderr of kubectl kept for its error.
const maxTail = 2048
