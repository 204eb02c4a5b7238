package up

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestPeerUID: the uid at the other end of a Unix socket is the kernel's
// (SO_PEERCRED); anything else has none.
func TestPeerUID(t *testing.T) {
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, ok := <-accepted
	if !ok {
		t.Fatal("accept failed")
	}
	defer s.Close()
	if uid, ok := peerUID(s); !ok || uid != os.Getuid() {
		t.Errorf("peer uid %d %v, want %d", uid, ok, os.Getuid())
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if _, ok := peerUID(a); ok {
		t.Error("a pipe has a peer uid")
	}
}
