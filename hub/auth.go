package hub

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/actctl/actctl/schema"
)

// sshPassphraseEnv holds the passphrase of an encrypted auth.sshKeyFile.
// The config only names the key file; the secret stays in the environment.
const sshPassphraseEnv = "ACTANT_SSH_PASSPHRASE"

// readSSHKey loads a private key file, saying plainly when it needs a
// passphrase that is missing or is given the wrong one.
func readSSHKey(path, passphrase string) (ssh.Signer, error) {
	pem, err := schema.ReadRegular(path, 0) // never a pipe: it would block
	if err != nil {
		return nil, err
	}
	if passphrase == "" {
		signer, err := ssh.ParsePrivateKey(pem)
		var missing *ssh.PassphraseMissingError
		if errors.As(err, &missing) {
			return nil, fmt.Errorf("the key is protected by a passphrase: set %s", sshPassphraseEnv)
		}
		return signer, err
	}
	signer, err := ssh.ParsePrivateKeyWithPassphrase(pem, []byte(passphrase))
	if errors.Is(err, x509.IncorrectPasswordError) {
		return nil, fmt.Errorf("the passphrase in %s does not decrypt the key", sshPassphraseEnv)
	}
	if err != nil && strings.Contains(err.Error(), "not encrypted") {
		// A plain key with a passphrase set for another one: use it as is.
		return ssh.ParsePrivateKey(pem)
	}
	return signer, err
}

// remoteProblem says why the remote could not be asked, in the user's
// terms: a refused credential is not an unreachable host, and the fix for
// each differs. The error text is trimmed (servers end it with newlines).
func remoteProblem(err error, src schema.HubSource, u string) string {
	msg := strings.TrimSpace(err.Error())
	switch {
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		hint := "configure auth: tokenEnv (https) or sshKeyFile / an SSH agent (ssh)"
		if src.Auth != nil && src.Auth.TokenEnv != "" && strings.HasPrefix(u, "http") {
			hint = "check the token in $" + src.Auth.TokenEnv
		} else if src.Auth != nil && src.Auth.SSHKeyFile != "" {
			hint = "check that the server accepts the key " + src.Auth.SSHKeyFile
		}
		return fmt.Sprintf("the remote refused the credentials (%s); %s", msg, hint)
	case errors.Is(err, transport.ErrRepositoryNotFound):
		return fmt.Sprintf("repository not found at the remote (%s)", msg)
	}
	var ke *knownhosts.KeyError
	if errors.As(err, &ke) || strings.Contains(msg, "knownhosts:") {
		host := u
		if ep, perr := transport.NewEndpoint(u); perr == nil {
			host = ep.Host
			if ep.Port != 0 && ep.Port != 22 {
				host = fmt.Sprintf("[%s]:%d", ep.Host, ep.Port)
			}
		}
		if ke != nil && len(ke.Want) > 0 {
			return fmt.Sprintf("the host key of %s does not match the one in known_hosts (%s): the host changed its key or someone is in between; check before you trust it", host, msg)
		}
		return fmt.Sprintf("the host key of %s is not in known_hosts (%s; files from SSH_KNOWN_HOSTS, else ~/.ssh/known_hosts): add it, e.g. with ssh-keyscan, after checking it", host, msg)
	}
	if strings.Contains(msg, "ssh: unable to authenticate") {
		hint := "configure auth.sshKeyFile or an SSH agent (SSH_AUTH_SOCK)"
		if src.Auth != nil && src.Auth.SSHKeyFile != "" {
			hint = "check that the server accepts the key " + src.Auth.SSHKeyFile
		}
		return fmt.Sprintf("the remote refused the credentials (%s); %s", msg, hint)
	}
	return fmt.Sprintf("remote unreachable (%s)", msg)
}

// isNetErr tells transport failures (unreachable, refused, auth) from
// local problems, so an offline fetch fails at once instead of retrying.
func isNetErr(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, transport.ErrRepositoryNotFound) || errors.Is(err, transport.ErrAuthenticationRequired) ||
		errors.Is(err, transport.ErrAuthorizationFailed) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	s := err.Error()
	for _, m := range []string{"connection refused", "no such host", "i/o timeout", "network is unreachable", "dial tcp", "connection reset", "EOF"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// authFor builds credentials for u from the source's auth block: an SSH key
// file or the SSH agent for ssh URLs; a token from an environment variable
// as the basic-auth password for http(s). Credentials stay in memory.
func authFor(src schema.HubSource, u string) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(u)
	if err != nil {
		return nil, fmt.Errorf("url: %w", err)
	}
	a := src.Auth
	switch ep.Protocol {
	case "ssh":
		user := firstNonEmpty(ep.User, "git")
		if a != nil && a.SSHKeyFile != "" {
			key := a.SSHKeyFile
			if strings.HasPrefix(key, "~/") {
				if h, err := os.UserHomeDir(); err == nil {
					key = filepath.Join(h, key[2:])
				}
			}
			signer, err := readSSHKey(key, os.Getenv(sshPassphraseEnv))
			if err != nil {
				return nil, fmt.Errorf("auth.sshKeyFile %s: %w", key, err)
			}
			return &gitssh.PublicKeys{User: user, Signer: signer}, nil
		}
		if os.Getenv("SSH_AUTH_SOCK") != "" {
			am, err := gitssh.NewSSHAgentAuth(user)
			if err != nil {
				return nil, fmt.Errorf("ssh agent: %w", err)
			}
			return am, nil
		}
		return nil, nil
	case "http", "https":
		if a != nil && a.TokenEnv != "" {
			tok := os.Getenv(a.TokenEnv)
			if tok == "" {
				return nil, fmt.Errorf("auth.tokenEnv: environment variable %s is empty or not set", a.TokenEnv)
			}
			return &githttp.BasicAuth{Username: firstNonEmpty(ep.User, "x-access-token"), Password: tok}, nil
		}
	}
	return nil, nil
}
