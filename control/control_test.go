package control

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// holdVar makes the test binary a second process that holds a workspace:
// it acquires the root in the variable, prints "held", and releases when
// its stdin closes.
const holdVar = "ACTCTL_CONTROL_TEST_HOLD"

func TestMain(m *testing.M) {
	if root := os.Getenv(holdVar); root != "" {
		os.Exit(hold(root))
	}
	os.Exit(m.Run())
}

func hold(root string) int {
	o, err := Acquire(root)
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("held")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until stdin closes
	if err := o.Close(); err != nil {
		fmt.Println("error:", err)
		return 1
	}
	return 0
}

// shortRoot is a workspace root short enough for a socket path
// (t.TempDir's can pass the system's limit).
func shortRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ctl")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// serve runs h as root's up until the test ends.
func serve(t *testing.T, root string, h HandlerFunc) {
	t.Helper()
	serveHandler(t, root, h)
}

func serveHandler(t *testing.T, root string, h Handler) {
	t.Helper()
	o, err := Acquire(root)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := o.Listen()
	if err != nil {
		o.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve = %v", err)
		}
		if err := o.Close(); err != nil {
			t.Errorf("Close = %v", err)
		}
	})
}

func do(t *testing.T, ctx context.Context, root string, req Request, onFrame func(Frame)) (Final, error) {
	t.Helper()
	c, err := Dial(root)
	if err != nil {
		t.Fatal(err)
	}
	return c.Do(ctx, req, onFrame)
}

func TestStatusRoundTrip(t *testing.T) {
	root := shortRoot(t)
	serve(t, root, func(ctx context.Context, req Request, out *Stream) (any, error) {
		return map[string]string{"op": req.Op, "agent": req.Agent, "output": req.Output}, nil
	})
	var frames []Frame
	f, err := do(t, context.Background(), root, Request{Op: OpStatus, Agent: "dev", Output: "json"}, func(fr Frame) { frames = append(frames, fr) })
	if err != nil {
		t.Fatal(err)
	}
	if f.Error != "" || f.Code != 0 || f.Err() != nil || len(frames) != 0 {
		t.Fatalf("final %+v, frames %v", f, frames)
	}
	if got, want := string(f.Result), `{"agent":"dev","op":"status","output":"json"}`; got != want {
		t.Fatalf("result %s, want %s", got, want)
	}
}

// TestFramesInOrder: frames sent from several goroutines at once arrive
// whole, each goroutine's in its order, all before the final frame.
func TestFramesInOrder(t *testing.T) {
	root := shortRoot(t)
	const senders, each = 4, 200
	serve(t, root, func(ctx context.Context, req Request, out *Stream) (any, error) {
		var wg sync.WaitGroup
		for s := range senders {
			wg.Go(func() {
				for i := range each {
					if err := out.Send("event", []int{s, i}); err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		return "end", nil
	})
	next := make([]int, senders)
	var n int
	f, err := do(t, context.Background(), root, Request{Op: OpPrompt, Wait: true}, func(fr Frame) {
		var si []int
		if err := json.Unmarshal(fr.Data, &si); err != nil || fr.Kind != "event" || len(si) != 2 {
			t.Fatalf("frame %q %s: %v", fr.Kind, fr.Data, err)
		}
		if si[1] != next[si[0]] {
			t.Fatalf("sender %d: frame %d, want %d", si[0], si[1], next[si[0]])
		}
		next[si[0]]++
		n++
	})
	if err != nil || string(f.Result) != `"end"` {
		t.Fatalf("final %+v, %v", f, err)
	}
	if n != senders*each {
		t.Fatalf("%d frames before the final, want %d", n, senders*each)
	}
}

func TestHandlerErrorCode(t *testing.T) {
	root := shortRoot(t)
	serve(t, root, func(ctx context.Context, req Request, out *Stream) (any, error) {
		switch req.Agent {
		case "coded":
			return nil, &ExitError{Code: 3, Err: errors.New("agent dev is fatal")}
		case "outcome":
			return map[string]string{"stopReason": "refusal"}, errors.New("the turn ended: refusal")
		}
		return nil, fmt.Errorf("no agent %q", req.Agent)
	})
	f, err := do(t, context.Background(), root, Request{Op: OpStart, Agent: "coded"}, nil)
	if err != nil || f.Error != "agent dev is fatal" || f.Code != 3 || f.Result != nil {
		t.Fatalf("coded: %+v, %v", f, err)
	}
	var ce CodeError
	if e := f.Err(); !errors.As(e, &ce) || ce.ExitCode() != 3 || e.Error() != "agent dev is fatal" {
		t.Fatalf("Final.Err() = %v", e)
	}
	f, err = do(t, context.Background(), root, Request{Op: OpStart, Agent: "x"}, nil)
	if err != nil || f.Error != `no agent "x"` || f.Code != 1 {
		t.Fatalf("plain: %+v, %v", f, err)
	}
	// A failed request keeps its result (the outcome of a turn that
	// ended badly).
	f, err = do(t, context.Background(), root, Request{Op: OpPrompt, Agent: "outcome"}, nil)
	if err != nil || f.Error == "" || string(f.Result) != `{"stopReason":"refusal"}` {
		t.Fatalf("error with result: %+v, %v", f, err)
	}
}

// TestUnknownOp: a request up does not know is answered with an error,
// and the handler is not called.
func TestUnknownOp(t *testing.T) {
	root := shortRoot(t)
	serve(t, root, func(ctx context.Context, req Request, out *Stream) (any, error) {
		t.Errorf("handler called with %+v", req)
		return nil, nil
	})
	for _, op := range []string{"fork", "log"} {
		f, err := do(t, context.Background(), root, Request{Op: op}, nil)
		if err != nil || f.Code != 1 || !strings.Contains(f.Error, `does not know the request "`+op+`"`) {
			t.Fatalf("%s: %+v, %v", op, f, err)
		}
	}
}

// TestClientGoneCancelsHandler: when the client's ctx ends, Do returns its
// error and the handler's ctx ends.
func TestClientGoneCancelsHandler(t *testing.T) {
	root := shortRoot(t)
	started, cancelled := make(chan struct{}), make(chan struct{})
	serve(t, root, func(ctx context.Context, req Request, out *Stream) (any, error) {
		if err := out.Send("line", "hello"); err != nil {
			return nil, err
		}
		close(started)
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	var frames int
	_, err := do(t, ctx, root, Request{Op: OpPrompt, Wait: true}, func(Frame) { frames++ })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Do = %v, want context.Canceled", err)
	}
	<-cancelled
}

// TestServeStopWaitsForHandlers: when Serve's ctx ends, the running
// handler's ctx ends, its answer still reaches the client, and Serve
// returns only after the handler has.
// ownAndListen acquires root for up and listens on its socket; the
// owner is closed when the test ends.
func ownAndListen(t *testing.T, root string) net.Listener {
	t.Helper()
	o, err := Acquire(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	ln, err := o.Listen()
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func TestServeStopWaitsForHandlers(t *testing.T) {
	root := shortRoot(t)
	ln := ownAndListen(t, root)
	started := make(chan struct{})
	var returned bool // written by the handler, read after Serve returns
	h := HandlerFunc(func(ctx context.Context, req Request, out *Stream) (any, error) {
		close(started)
		<-ctx.Done()
		returned = true
		return nil, errors.New("actctl up is stopping")
	})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, h) }()
	type answer struct {
		f   Final
		err error
	}
	answered := make(chan answer, 1)
	go func() {
		c, err := Dial(root)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		f, err := c.Do(context.Background(), Request{Op: OpPrompt, Agent: "dev", Text: "hi", Wait: true}, nil)
		answered <- answer{f, err}
	}()
	<-started
	cancel()
	if err := <-served; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	if !returned {
		t.Fatal("Serve returned before its handler")
	}
	if a := <-answered; a.err != nil || a.f.Error != "actctl up is stopping" {
		t.Fatalf("client got %+v, %v", a.f, a.err)
	}
	if _, err := Dial(root); !errors.Is(err, ErrNoUp) {
		t.Fatalf("Dial after Serve stopped = %v, want ErrNoUp", err)
	}
}

func TestGoneWithoutFinal(t *testing.T) {
	root := shortRoot(t)
	ln := ownAndListen(t, root)
	go func() { // an up that reads the request and dies
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		_, _ = bufio.NewReader(conn).ReadString('\n')
		conn.Write([]byte(`{"kind":"line","data":"x"}` + "\n"))
		conn.Close()
	}()
	var frames int
	_, err := do(t, context.Background(), root, Request{Op: OpStatus}, func(Frame) { frames++ })
	if !errors.Is(err, ErrGone) || err.Error() != "actctl up went away before it answered" || frames != 1 {
		t.Fatalf("Do = %v after %d frames", err, frames)
	}
}

func TestSocketModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	root := shortRoot(t)
	if err := os.MkdirAll(filepath.Join(root, ".actant", "run"), 0o755); err != nil {
		t.Fatal(err)
	}
	serve(t, root, func(context.Context, Request, *Stream) (any, error) { return nil, nil })
	for p, want := range map[string]os.FileMode{
		SocketPath(root):                   0o600,
		LockPath(root):                     0o600,
		filepath.Join(root, ".actant/run"): 0o700, // made private though it existed
	} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
}

const noUp = "no actctl up is running for this workspace; start it with `actctl up`"

func TestDialNoSocket(t *testing.T) {
	root := shortRoot(t)
	_, err := Dial(root)
	if !errors.Is(err, ErrNoUp) || err.Error() != noUp {
		t.Fatalf("Dial = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".actant")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Dial created .actant: %v", err)
	}
}

// TestDialStaleSocket: the socket of an up killed with -9 stays; nobody
// listens on it.
func TestDialStaleSocket(t *testing.T) {
	root := shortRoot(t)
	o, err := Acquire(root)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := o.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if _, err := os.Stat(SocketPath(root)); err != nil {
		t.Fatalf("the stale socket is not there: %v", err)
	}
	if _, err := Dial(root); !errors.Is(err, ErrNoUp) || err.Error() != noUp {
		t.Fatalf("Dial = %v", err)
	}
	o.Close()
	// The next up replaces the stale socket.
	o, err = Acquire(root)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := o.Listen(); err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	c, err := Dial(root)
	if err != nil {
		t.Fatalf("Dial = %v", err)
	}
	c.Close()
}

// deepRoot is a workspace root whose .actant/run/up.sock is longer than a
// socket path may be, with XDG_RUNTIME_DIR set to a fresh short directory
// for the fallback socket; it returns both.
func deepRoot(t *testing.T) (root, rundir string) {
	t.Helper()
	rundir = shortRoot(t)
	t.Setenv("XDG_RUNTIME_DIR", rundir)
	return filepath.Join(shortRoot(t), strings.Repeat("d", maxSocketPath)), rundir
}

// wantFallback is the fallback socket path docs/runtime.md gives for root
// (which exists).
func wantFallback(rundir, root string) string {
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(rundir, fmt.Sprintf("actctl-%d", os.Getuid()), hex.EncodeToString(sum[:])[:16]+".sock")
}

// TestSocketPathFallback: a workspace too deep for .actant/run/up.sock
// gets its socket in a private directory of the runtime dir, named after
// the root's hash; up and a client (through a symlink too) meet there, and
// Close removes it.
func TestSocketPathFallback(t *testing.T) {
	root, rundir := deepRoot(t)
	o, err := Acquire(root)
	if err != nil {
		t.Fatal(err)
	}
	sock := SocketPath(root)
	if want := wantFallback(rundir, root); sock != want {
		t.Fatalf("SocketPath = %s, want %s", sock, want)
	}
	ln, err := o.Listen()
	if err != nil {
		t.Fatalf("Listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go Serve(ctx, ln, HandlerFunc(func(context.Context, Request, *Stream) (any, error) { return "pong", nil }))
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{sock: 0o600, filepath.Dir(sock): 0o700} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: %v, want mode %v", p, fi, want)
			}
		}
	}
	link := filepath.Join(shortRoot(t), strings.Repeat("l", maxSocketPath))
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{root, link} {
		if f, err := do(t, context.Background(), r, Request{Op: OpStatus}, nil); err != nil || string(f.Result) != `"pong"` {
			t.Fatalf("status through %s: %+v %v", r, f, err)
		}
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket after Close: %v", err)
	}
	if _, err := Dial(root); !errors.Is(err, ErrNoUp) {
		t.Fatalf("Dial after Close = %v", err)
	}
}

// TestSocketDirNotPrivate: a fallback directory open to others, a
// symlink, or someone else's is refused by up and by clients, with
// nothing created in it.
func TestSocketDirNotPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	root, _ := deepRoot(t)
	sock := SocketPath(root)
	dir := filepath.Dir(sock)
	if _, err := Dial(root); !errors.Is(err, ErrNoUp) {
		t.Fatalf("Dial without the directory = %v, want ErrNoUp", err)
	}
	o, err := Acquire(root)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	other := shortRoot(t)
	for _, c := range []struct {
		name, why string
		make      func() error
	}{
		{"open", "its mode is 0755, open to others", func() error { os.Mkdir(dir, 0o700); return os.Chmod(dir, 0o755) }},
		{"symlink", "it is a symbolic link", func() error { return os.Symlink(other, dir) }},
		{"file", "it is not a directory", func() error { return os.WriteFile(dir, nil, 0o600) }},
	} {
		if err := c.make(); err != nil {
			t.Fatal(err)
		}
		want := "refusing the control socket directory " + dir + ": " + c.why + "; it must be a directory of yours with mode 0700"
		if _, err := o.Listen(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Listen = %v, want %q", c.name, err, want)
		}
		if _, err := Dial(root); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Dial = %v, want %q", c.name, err, want)
		}
		if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			t.Errorf("%s: a socket was created: %v", c.name, err)
		}
		if entries, _ := os.ReadDir(other); len(entries) != 0 {
			t.Errorf("%s: something was created through the symlink: %v", c.name, entries)
		}
		if err := os.Remove(dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("it belongs to uid %d, not to you (uid %d)", os.Getuid(), os.Getuid()+1)
	if err := checkSocketDir(sock, root, os.Getuid()+1); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("someone else's directory: %v, want %q", err, want)
	}
}

// TestSocketPathTooLong: when the fallback path is too long as well,
// up and clients say so and what to do, and create nothing.
func TestSocketPathTooLong(t *testing.T) {
	root := filepath.Join(shortRoot(t), strings.Repeat("d", maxSocketPath))
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(shortRoot(t), strings.Repeat("r", maxSocketPath)))
	o, err := Acquire(root)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	sock := SocketPath(root)
	want := fmt.Sprintf("control socket %s is %d bytes long, more than the %d this system allows for a Unix socket path (the workspace's own, %s, is too long as well); set XDG_RUNTIME_DIR to a shorter directory",
		sock, len(sock), maxSocketPath, filepath.Join(root, ".actant", "run", "up.sock"))
	if _, err := o.Listen(); err == nil || err.Error() != want {
		t.Fatalf("Listen = %v, want %q", err, want)
	}
	if _, err := os.Lstat(filepath.Dir(sock)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Listen created %s: %v", filepath.Dir(sock), err)
	}
	if _, err := Dial(root); err == nil || err.Error() != want {
		t.Fatalf("Dial = %v, want %q", err, want)
	}
}

// TestAcquireTwiceInProcess: a second Owner in the same process is
// refused too, and may take over once the first closes, which clears the
// pid and removes the socket.
func TestAcquireTwiceInProcess(t *testing.T) {
	root := shortRoot(t)
	o, err := Acquire(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Listen(); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("actctl up is already running for this workspace (pid %d)", os.Getpid())
	if _, err := Acquire(root); err == nil || err.Error() != want {
		t.Fatalf("second Acquire = %v, want %q", err, want)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(LockPath(root)); err != nil || len(b) != 0 {
		t.Fatalf("lock file after Close: %q, %v", b, err)
	}
	if _, err := os.Lstat(SocketPath(root)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket after Close: %v", err)
	}
	o2, err := Acquire(root)
	if err != nil {
		t.Fatalf("Acquire after Close = %v", err)
	}
	o2.Close()
}

// startHolder starts this test binary as another process holding root,
// and waits until it holds it. Closing stdin makes it release.
func startHolder(t *testing.T, root string) (*exec.Cmd, func()) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), holdVar+"="+root)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "held\n" {
		t.Fatalf("holder said %q", line)
	}
	return cmd, func() { stdin.Close() }
}

// TestAcquireOtherProcess: an up in another process is named by its pid,
// nothing is changed, and the workspace is free once it releases or is
// killed.
func TestAcquireOtherProcess(t *testing.T) {
	root := shortRoot(t)
	cmd, release := startHolder(t, root)
	before, err := os.ReadFile(LockPath(root))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(root)
	var re *RunningError
	if !errors.As(err, &re) || re.Pid != cmd.Process.Pid ||
		err.Error() != "actctl up is already running for this workspace (pid "+strconv.Itoa(cmd.Process.Pid)+")" {
		t.Fatalf("Acquire = %v, want the holder's pid %d", err, cmd.Process.Pid)
	}
	after, err := os.ReadFile(LockPath(root))
	if err != nil || string(after) != string(before) {
		t.Fatalf("lock file changed: %q -> %q (%v)", before, after, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(root, ".actant", "run")); len(entries) != 1 {
		t.Fatalf("run dir holds %v, want the lock file only", entries)
	}
	release()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("holder: %v", err)
	}
	o, err := Acquire(root)
	if err != nil {
		t.Fatalf("Acquire after the holder released = %v", err)
	}
	o.Close()

	// kill -9: the kernel drops the lock.
	cmd, _ = startHolder(t, root)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	o, err = Acquire(root)
	if err != nil {
		t.Fatalf("Acquire after the holder was killed = %v", err)
	}
	o.Close()
}

// TestBadRequest: a line that is no request is answered with an error.
func TestBadRequest(t *testing.T) {
	root := shortRoot(t)
	serve(t, root, func(ctx context.Context, req Request, out *Stream) (any, error) {
		t.Errorf("handler called with %+v", req)
		return nil, nil
	})
	conn, err := net.Dial("unix", SocketPath(root))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("status please\n")); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(conn).ReadString('\n')
	var w wire
	if err != nil || json.Unmarshal([]byte(line), &w) != nil || !w.Done || w.Code != 1 || !strings.HasPrefix(w.Error, "bad request: ") {
		t.Fatalf("answer %q, %v", line, err)
	}
}

// TestAcquireActantIsFile: a file where .actant/ belongs is explained and
// left alone.
func TestAcquireActantIsFile(t *testing.T) {
	root := shortRoot(t)
	p := filepath.Join(root, ".actant")
	if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Acquire(root)
	if err == nil || !strings.Contains(err.Error(), p+" is a file, where actctl keeps its directory") {
		t.Fatalf("Acquire = %v", err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "mine" {
		t.Fatalf("%s now holds %q, %v", p, b, err)
	}
	if _, err := Dial(root); !errors.Is(err, ErrNoUp) {
		t.Fatalf("Dial = %v, want ErrNoUp", err)
	}
}

// echoUpgrader serves lease streams by echoing each line back upper-cased,
// and refuses agent "down".
type echoUpgrader struct{ HandlerFunc }

func (echoUpgrader) Upgrade(ctx context.Context, req Request) (func(context.Context, io.Reader, io.Writer) error, error) {
	if req.Agent == "down" {
		return nil, errors.New("agent down is not running")
	}
	return func(ctx context.Context, r io.Reader, w io.Writer) error {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if _, err := fmt.Fprintln(w, strings.ToUpper(sc.Text())); err != nil {
				return err
			}
		}
		return sc.Err()
	}, nil
}

// TestUpgrade: a lease request, once accepted, carries raw bytes both
// ways (also bytes sent right behind the request); a refusal is an error.
func TestUpgrade(t *testing.T) {
	root := shortRoot(t)
	serveHandler(t, root, echoUpgrader{})
	c, err := Dial(root)
	if err != nil {
		t.Fatal(err)
	}
	rw, err := c.Upgrade(Request{Op: OpLease, Agent: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Close()
	if _, err := io.WriteString(rw, "hello\nworld\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(rw)
	for _, want := range []string{"HELLO\n", "WORLD\n"} {
		if got, err := br.ReadString('\n'); got != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
	}
	c, err = Dial(root)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Upgrade(Request{Op: OpLease, Agent: "down"}); err == nil || err.Error() != "agent down is not running" {
		t.Fatalf("refused lease: %v", err)
	}
	// A handler that does not take leases refuses them.
	other := shortRoot(t)
	serve(t, other, func(ctx context.Context, req Request, out *Stream) (any, error) { return nil, nil })
	c, err = Dial(other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Upgrade(Request{Op: OpLease}); err == nil || !strings.Contains(err.Error(), `does not serve "lease"`) {
		t.Fatalf("lease to a plain handler: %v", err)
	}
}

// TestHandlerPanic: a handler that panics answers its request with an
// error naming the panic, and the server goes on serving.
func TestHandlerPanic(t *testing.T) {
	root := shortRoot(t)
	serve(t, root, func(ctx context.Context, req Request, out *Stream) (any, error) {
		if req.Agent == "boom" {
			panic("the handler broke")
		}
		return "fine", nil
	})
	f, err := do(t, context.Background(), root, Request{Op: OpStatus, Agent: "boom"}, nil)
	if err != nil || f.Code != 1 || !strings.Contains(f.Error, "actctl up failed on the status request: panic: the handler broke") {
		t.Fatalf("panicking handler: %+v, %v", f, err)
	}
	f, err = do(t, context.Background(), root, Request{Op: OpStatus}, nil)
	if err != nil || string(f.Result) != `"fine"` {
		t.Fatalf("after the panic: %+v, %v", f, err)
	}
}
