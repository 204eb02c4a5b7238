package acpclient

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/rpcpeer"
	"github.com/actctl/actctl/model"
)

// The client's fs methods (docs/run.md, "What the client does for the
// agent"): every path is looked up beneath a directory held open (a root
// of the session), never by following a symlink out of it at any step
// (beneath_unix.go); writes never touch actctl's own records or the
// repository's machinery (model.ProtectedTarget); text is served only
// when it is valid UTF-8 and the answer within MaxReadBytes (fs_read.go).

// root is one directory the agent may read and write through the client.
type root struct {
	given string // as the session names it (its cwd, the workspace)
	real  string // symlinks resolved, when the session was set up
	id    fileID // the directory's identity then (beneath_*.go)
}

// roots are the directories the agent may read and write through the
// client: the session cwd and the agent's workspace, each once.
type roots []root

func newRoots(dirs ...string) (roots, error) {
	var out roots
	for _, d := range dirs {
		if d == "" {
			continue
		}
		r, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, err)
		}
		if out.has(r) {
			continue
		}
		id, err := statID(r)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", d, err)
		}
		out = append(out, root{given: filepath.Clean(d), real: r, id: id})
	}
	return out, nil
}

func (rs roots) has(real string) bool {
	for _, r := range rs {
		if r.real == real {
			return true
		}
	}
	return false
}

// String lists the roots' real paths, each once.
func (rs roots) String() string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.real
	}
	return strings.Join(names, ", ")
}

// locate finds the root an absolute path lies in by its spelling (the
// root as given or resolved; the innermost when roots nest) and returns
// the path relative to it, without resolving anything: the lookup itself
// happens beneath the root's directory.
func (rs roots) locate(p string) (root, string, error) {
	if !filepath.IsAbs(p) {
		return root{}, "", fsError(rpcpeer.CodeInvalidParams, p, fmt.Sprintf("%s: the path must be absolute", p))
	}
	clean := filepath.Clean(p)
	var best root
	bestRel, bestLen := "", -1
	for _, r := range rs {
		for _, base := range []string{r.real, r.given} {
			if rel, ok := within(base, clean); ok && len(base) > bestLen {
				best, bestRel, bestLen = r, rel, len(base)
			}
		}
	}
	if bestLen < 0 {
		return root{}, "", rs.outside(p, "")
	}
	return best, bestRel, nil
}

// within returns p relative to base if p is base or below it.
func within(base, p string) (string, bool) {
	if p == base {
		return ".", true
	}
	sep := string(filepath.Separator)
	if strings.HasSuffix(base, sep) {
		sep = ""
	}
	if rest, ok := strings.CutPrefix(p, base+sep); ok {
		return rest, true
	}
	return "", false
}

// resolve returns the real path of p (an absolute path whose last
// components may not exist yet) if it lies in one of the roots, else a
// JSON-RPC error naming the path and the roots. It is a check at one
// moment (terminal/create's cwd); the fs methods open beneath a root
// instead.
func (rs roots) resolve(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", fsError(rpcpeer.CodeInvalidParams, p, fmt.Sprintf("%s: the path must be absolute", p))
	}
	real, err := realPath(filepath.Clean(p))
	if err != nil {
		return "", fsError(rpcpeer.CodeInternal, p, fmt.Sprintf("resolve %s: %v", p, err))
	}
	for _, r := range rs {
		if _, ok := within(r.real, real); ok {
			return real, nil
		}
	}
	return "", rs.outside(p, "")
}

// realPath resolves symlinks in p; components that do not exist are
// appended to the real path of the deepest one that does.
func realPath(p string) (string, error) {
	var rest []string
	for {
		r, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}

// codeNotFound is ACP's resource_not_found, the error code of a missing
// file (the others are JSON-RPC's: rpcpeer).
const codeNotFound = -32002

// fsError is the error an agent's fs request gets: its message says what
// happened to which path (agents show the message, not the data).
func fsError(code int, path, msg string) *acp.RequestError {
	return &acp.RequestError{Code: code, Message: msg, Data: map[string]any{"path": path}}
}

// errOutside is a lookup that would leave its root: a ".." above it, a
// symlink out of it (an absolute one, or one whose target climbs out), or
// a root replaced since the session started.
type errOutside struct{ why string }

func (e *errOutside) Error() string { return e.why }

// outside is the refusal of p, with why (if known) the way out it took.
func (rs roots) outside(p, why string) error {
	msg := fmt.Sprintf("%s is outside the session's directories (%s)", p, rs)
	if why != "" {
		msg += ": " + why
	}
	return fsError(rpcpeer.CodeInvalidParams, p, msg)
}

// errProtected is a write refused because its target is one of the files
// no agent may write (model.ProtectedTarget).
type errProtected struct{ rel, why string }

func (e *errProtected) Error() string { return e.rel + ": " + e.why }

// protectedCheck refuses a write at rel (relative to its root, once every
// symlink on the way was followed) when rel is protected, seen from the
// root or from any directory below it: the client cannot tell where a
// workspace starts (a session cwd may hold several), so a root actant.*
// file of any of them is refused too.
func protectedCheck(rel string) error {
	slash := filepath.ToSlash(rel)
	for from := slash; ; {
		if why := model.ProtectedTarget(from); why != "" {
			if from != slash {
				why = fmt.Sprintf("for a workspace in %s, %s", strings.TrimSuffix(slash, "/"+from), why)
			}
			return &errProtected{rel: rel, why: why}
		}
		_, rest, ok := strings.Cut(from, "/")
		if !ok {
			return nil
		}
		from = rest
	}
}

// requestError turns what a lookup, read or write of path returned into
// the error the agent gets, with verb ("read", "write") saying what
// failed. Every answer carries a message of its own: never a bare
// "Internal error".
func (rs roots) requestError(verb, path string, err error) error {
	var re *acp.RequestError
	var out *errOutside
	var prot *errProtected
	switch {
	case errors.As(err, &re):
		return re
	case errors.As(err, &out):
		return rs.outside(path, out.why)
	case errors.As(err, &prot):
		return fsError(rpcpeer.CodeInvalidParams, path, fmt.Sprintf("%s: actctl's client never writes there (under any preset): %s", path, prot.why))
	case errors.Is(err, fs.ErrNotExist):
		return fsError(codeNotFound, path, fmt.Sprintf("%s %s: no such file or directory", verb, path))
	case errors.Is(err, fs.ErrPermission):
		return fsError(rpcpeer.CodeInvalidParams, path, fmt.Sprintf("%s %s: permission denied", verb, path))
	}
	return fsError(rpcpeer.CodeInternal, path, fmt.Sprintf("%s %s: %v", verb, path, err))
}

// ReadTextFile reads a file in the roots of the session the request names.
func (c *Client) ReadTextFile(ctx context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	s, err := c.session(req.SessionId)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	if d := s.delegateFor(MethodReadTextFile); d != nil {
		return d.ReadTextFile(ctx, req)
	}
	r, rel, err := s.roots.locate(req.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	f, err := openBeneath(r, rel)
	if err != nil {
		return acp.ReadTextFileResponse{}, s.roots.requestError("read", req.Path, err)
	}
	defer f.Close()
	text, err := readText(f, req.Path, req.Line, req.Limit, MaxReadBytes)
	if err != nil {
		return acp.ReadTextFileResponse{}, s.roots.requestError("read", req.Path, err)
	}
	return acp.ReadTextFileResponse{Content: text}, nil
}

// WriteTextFile writes a file in the roots of the session the request
// names: atomically (temporary file and rename in the same directory,
// both beneath the root), through a symlink to its target when the link
// stays in the root, never at a protected path (writeCheck).
func (c *Client) WriteTextFile(ctx context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	s, err := c.session(req.SessionId)
	if err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	if d := s.delegateFor(MethodWriteTextFile); d != nil {
		return d.WriteTextFile(ctx, req)
	}
	r, rel, err := s.roots.locate(req.Path)
	if err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	check := s.writeCheck(r)
	if err := check(rel); err != nil {
		return acp.WriteTextFileResponse{}, s.roots.requestError("write", req.Path, err)
	}
	if err := writeBeneath(r, rel, []byte(req.Content), check); err != nil {
		return acp.WriteTextFileResponse{}, s.roots.requestError("write", req.Path, err)
	}
	return acp.WriteTextFileResponse{}, nil
}
