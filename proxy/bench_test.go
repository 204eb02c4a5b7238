package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Benchmarks run the proxy as a real subprocess (this test binary in the
// "proxy" role, spawning itself in the "agent" role), exactly as an editor
// runs `actctl proxy`, and compare it with the same agent spawned directly.
// Results and commands: docs/benchmarks-proxy.md.

// endpoint is a client's view of an ACP agent process, direct or proxied.
type endpoint struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startEndpoint(b *testing.B, proxied bool) *endpoint {
	b.Helper()
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	agentEnv := append(os.Environ(), envRole+"=agent", envAgentMode+"=bench")
	cmd := exec.Command(exe)
	cmd.Env = agentEnv
	if proxied {
		opts, _ := json.Marshal(proxyRoleOptions{Command: exe, Env: agentEnv})
		cmd.Env = append(os.Environ(), envRole+"=proxy", envProxyOpts+"="+string(opts))
	}
	cmd.Stderr = io.Discard
	e := &endpoint{cmd: cmd}
	e.in, _ = cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	e.out = bufio.NewReaderSize(out, 1<<16)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		e.in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	e.ping(b, 0) // warm up: both processes running and connected
	return e
}

func (e *endpoint) ping(b *testing.B, id int) {
	if _, err := io.WriteString(e.in, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"_bench/ping","params":{}}`+"\n"); err != nil {
		b.Fatal(err)
	}
	if _, err := e.out.ReadSlice('\n'); err != nil {
		b.Fatal(err)
	}
}

// peakRSS returns the VmHWM (peak resident set) of pid in MiB.
func peakRSS(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			f := strings.Fields(l)
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	return -1
}

// BenchmarkRelayThroughput streams 1 KiB session/update notifications agent ->
// client (the heavy direction of a turn) and 1 KiB notifications client ->
// agent. msgs/s is the figure docs/benchmarks.md sets a target for;
// peak-RSS-MiB is the proxy process's VmHWM after the run.
func BenchmarkRelayThroughput(b *testing.B) {
	for _, proxied := range []bool{false, true} {
		name := "direct"
		if proxied {
			name = "proxy"
		}
		b.Run("agent-to-client/"+name, func(b *testing.B) {
			e := startEndpoint(b, proxied)
			b.SetBytes(1024)
			b.ResetTimer()
			start := time.Now()
			if _, err := io.WriteString(e.in, `{"jsonrpc":"2.0","id":"emit","method":"_bench/emit","params":{"n":`+strconv.Itoa(b.N)+`}}`+"\n"); err != nil {
				b.Fatal(err)
			}
			for i := 0; i <= b.N; i++ {
				l, err := e.out.ReadSlice('\n')
				if err != nil {
					b.Fatal(err)
				}
				if i < b.N && len(l) != 1024 {
					b.Fatalf("message %d has %d bytes", i, len(l))
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
			if proxied {
				b.ReportMetric(peakRSS(e.cmd.Process.Pid), "peak-RSS-MiB")
			}
		})
		b.Run("client-to-agent/"+name, func(b *testing.B) {
			e := startEndpoint(b, proxied)
			line := bytes.Replace(benchLine(1024), []byte(`"session/update"`), []byte(`"_bench/note0000"`), 1)
			w := bufio.NewWriterSize(e.in, 1<<16)
			b.SetBytes(1024)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				if _, err := w.Write(line); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
			e.ping(b, 1) // ordered: answered after every note was read
			b.StopTimer()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msgs/s")
			if proxied {
				b.ReportMetric(peakRSS(e.cmd.Process.Pid), "peak-RSS-MiB")
			}
		})
	}
}

// BenchmarkRelayLatency measures request/response round trips of a small
// message, alternating between a direct agent and a proxied one so that
// both see the same machine load. added-p50-us is the median latency the
// relay adds to one message (half the round-trip difference: a round trip
// crosses the relay twice).
func BenchmarkRelayLatency(b *testing.B) {
	direct := startEndpoint(b, false)
	proxied := startEndpoint(b, true)
	d := make([]time.Duration, 0, b.N)
	p := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		direct.ping(b, i)
		t1 := time.Now()
		proxied.ping(b, i)
		t2 := time.Now()
		d = append(d, t1.Sub(t0))
		p = append(p, t2.Sub(t1))
	}
	b.StopTimer()
	med := func(s []time.Duration) float64 {
		sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
		return float64(s[len(s)/2]) / float64(time.Microsecond)
	}
	dm, pm := med(d), med(p)
	b.ReportMetric(dm, "direct-rtt-p50-us")
	b.ReportMetric(pm, "proxy-rtt-p50-us")
	b.ReportMetric((pm-dm)/2, "added-p50-us")
}
