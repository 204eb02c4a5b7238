//go:build unix

package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// gitSSHServer serves the bare repositories under root over SSH on
// 127.0.0.1 the way a git host does: user "git", public-key auth with the
// one key allowed, and only `git-upload-pack '<path>'` as a command. It
// returns the address and the server's host key, and counts sessions.
func gitSSHServer(t *testing.T, root string, allowed ssh.PublicKey) (string, ssh.PublicKey, *atomic.Int64) {
	t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	host, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(c ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if c.User() == "git" && bytes.Equal(k.Marshal(), allowed.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("key not allowed")
	}}
	cfg.AddHostKey(host)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var sessions atomic.Int64
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go serveGitSSH(nc, cfg, root, &sessions)
		}
	}()
	return ln.Addr().String(), host.PublicKey(), &sessions
}

func serveGitSSH(nc net.Conn, cfg *ssh.ServerConfig, root string, sessions *atomic.Int64) {
	defer nc.Close()
	_, chans, reqs, err := ssh.NewServerConn(nc, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nch := range chans {
		if nch.ChannelType() != "session" {
			nch.Reject(ssh.UnknownChannelType, "only sessions")
			continue
		}
		ch, creqs, err := nch.Accept()
		if err != nil {
			continue
		}
		sessions.Add(1)
		go func() {
			defer ch.Close()
			for req := range creqs {
				if req.Type != "exec" {
					if req.WantReply {
						req.Reply(false, nil)
					}
					continue
				}
				var p struct{ Command string }
				ssh.Unmarshal(req.Payload, &p)
				prog, arg, _ := strings.Cut(p.Command, " ")
				if prog != "git-upload-pack" {
					req.Reply(false, nil)
					return
				}
				req.Reply(true, nil)
				cmd := exec.Command("git", "upload-pack", filepath.Join(root, strings.Trim(arg, "'")))
				cmd.Stdout, cmd.Stderr = ch, ch.Stderr()
				in, _ := cmd.StdinPipe()
				code := uint32(0)
				if err := cmd.Start(); err != nil {
					code = 127
				} else {
					go func() { io.Copy(in, ch); in.Close() }()
					if err := cmd.Wait(); err != nil {
						code = 1
					}
				}
				ch.SendRequest("exit-status", false, ssh.Marshal(struct{ C uint32 }{code}))
				return
			}
		}()
	}
}

// TestHubSSHKeyFile: a hub over ssh:// with auth.sshKeyFile, a key
// protected by a passphrase given in ACTANT_SSH_PASSPHRASE, and the host
// checked against known_hosts (SSH_KNOWN_HOSTS). A wrong passphrase, a key
// the server refuses and an unknown host key each fail with a message that
// says which, and write nothing.
func TestHubSSHKeyFile(t *testing.T) {
	const pass = "correct horse"
	srvRoot := bareHubRepo(t, "# Review over ssh")

	keys := t.TempDir()
	writeKey := func(name string) ssh.PublicKey {
		pub, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		blk, err := ssh.MarshalPrivateKeyWithPassphrase(priv, "test", []byte(pass))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(keys, name), pem.EncodeToMemory(blk), 0o600); err != nil {
			t.Fatal(err)
		}
		sp, err := ssh.NewPublicKey(pub)
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	allowed := writeKey("id_hub")
	writeKey("id_other")
	addr, hostKey, sessions := gitSSHServer(t, srvRoot, allowed)
	knownHosts := filepath.Join(keys, "known_hosts")
	if err := os.WriteFile(knownHosts, []byte(knownhosts.Line([]string{knownhosts.Normalize(addr)}, hostKey)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	emptyKnown := filepath.Join(keys, "known_hosts.empty")
	if err := os.WriteFile(emptyKnown, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	root, home := t.TempDir(), filepath.Join(t.TempDir(), "home")
	config := func(key string) {
		writeConfig(t, root, `package actant
hub: team: {url: "ssh://git@`+addr+`/hub.git", ref: branch: "main", auth: sshKeyFile: "`+filepath.Join(keys, key)+`"}
agents: rev: template: "team@reviewer"
`)
	}
	run := func(env ...string) result {
		// No SSH agent: only the key file may be used.
		return actctlEnv(t, root, home, append([]string{"SSH_AUTH_SOCK="}, env...), "-C", root, "apply")
	}
	nothingWritten := func(what string) {
		t.Helper()
		assertNotWritten(t, root, what, "actant.lock", "CLAUDE.md", ".claude")
	}
	bad := []struct {
		name, key string
		env       []string
		want      []string
	}{
		{"wrong passphrase", "id_hub", []string{"ACTANT_SSH_PASSPHRASE=nope", "SSH_KNOWN_HOSTS=" + knownHosts}, []string{"auth.sshKeyFile", "id_hub", "ACTANT_SSH_PASSPHRASE does not decrypt"}},
		{"no passphrase", "id_hub", []string{"ACTANT_SSH_PASSPHRASE=", "SSH_KNOWN_HOSTS=" + knownHosts}, []string{"auth.sshKeyFile", "ACTANT_SSH_PASSPHRASE"}},
		{"refused key", "id_other", []string{"ACTANT_SSH_PASSPHRASE=" + pass, "SSH_KNOWN_HOSTS=" + knownHosts}, []string{`hub source "team"`, "refused the credentials", "id_other"}},
		{"unknown host", "id_hub", []string{"ACTANT_SSH_PASSPHRASE=" + pass, "SSH_KNOWN_HOSTS=" + emptyKnown}, []string{`hub source "team"`, "is not in known_hosts", "[127.0.0.1]:"}},
	}
	for _, c := range bad {
		config(c.key)
		r := run(c.env...)
		t.Logf("%s:\n%s", c.name, r.Stderr)
		if r.Code != 1 {
			t.Errorf("%s: exit %d", c.name, r.Code)
		}
		for _, w := range c.want {
			if !strings.Contains(r.Stderr, w) {
				t.Errorf("%s: message lacks %q:\n%s", c.name, w, r.Stderr)
			}
		}
		if strings.Contains(r.Stdout+r.Stderr, pass) {
			t.Errorf("%s: the passphrase was printed", c.name)
		}
		nothingWritten(c.name)
	}

	config("id_hub")
	r := run("ACTANT_SSH_PASSPHRASE="+pass, "SSH_KNOWN_HOSTS="+knownHosts)
	if r.Code != 0 {
		t.Fatalf("apply over ssh: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(read(t, filepath.Join(root, ".claude/skills/review/SKILL.md")), "# Review over ssh") {
		t.Error("the hub skill was not materialized")
	}
	if lock := read(t, filepath.Join(root, "actant.lock")); strings.Contains(lock, pass) || !strings.Contains(lock, `"commit"`) {
		t.Errorf("actant.lock:\n%s", lock)
	}
	// Satisfied lock: no connection at all.
	n := sessions.Load()
	if r := run(); r.Code != 0 || sessions.Load() != n {
		t.Errorf("satisfied lock: exit %d, %d new sessions\n%s", r.Code, sessions.Load()-n, r.Stderr)
	}
}
