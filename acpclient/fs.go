package acpclient

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/actctl/actctl/internal/atomicfile"
)

// roots are the directories the agent may read and write through the
// client: the session cwd and the agent's workspace, symlinks resolved.
type roots []string

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
		out = append(out, r)
	}
	return out, nil
}

// resolve returns the real path of p (an absolute path whose last
// components may not exist yet) if it lies in one of the roots, else a
// JSON-RPC error naming the path and the roots.
func (rs roots) resolve(p string) (string, error) {
	if !filepath.IsAbs(p) {
		return "", acp.NewInvalidParams(map[string]any{"path": p, "error": "path must be absolute"})
	}
	real, err := realPath(filepath.Clean(p))
	if err != nil {
		return "", acp.NewInternalError(map[string]any{"path": p, "error": err.Error()})
	}
	for _, r := range rs {
		if real == r || strings.HasPrefix(real, r+string(filepath.Separator)) {
			return real, nil
		}
	}
	return "", &acp.RequestError{Code: -32602, Message: fmt.Sprintf("%s is outside the session's directories (%s)", p, strings.Join(rs, ", ")),
		Data: map[string]any{"path": p, "resolved": real, "roots": []string(rs)}}
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

// ReadTextFile reads a file in the roots of the session the request names.
func (c *Client) ReadTextFile(ctx context.Context, req acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	s, err := c.session(req.SessionId)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	if d := s.delegateFor(MethodReadTextFile); d != nil {
		return d.ReadTextFile(ctx, req)
	}
	p, err := s.roots.resolve(req.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return acp.ReadTextFileResponse{}, acp.NewInternalError(map[string]any{"path": req.Path, "error": err.Error()})
	}
	return acp.ReadTextFileResponse{Content: lineRange(string(b), req.Line, req.Limit)}, nil
}

// lineRange cuts content to limit lines from the 1-based line.
func lineRange(content string, line, limit *int) string {
	if line == nil && limit == nil {
		return content
	}
	lines := strings.SplitAfter(content, "\n")
	start := 0
	if line != nil && *line > 1 {
		start = min(*line-1, len(lines))
	}
	end := len(lines)
	if limit != nil && *limit >= 0 && start+*limit < end {
		end = start + *limit
	}
	return strings.Join(lines[start:end], "")
}

// WriteTextFile writes a file in the roots of the session the request
// names.
func (c *Client) WriteTextFile(ctx context.Context, req acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	s, err := c.session(req.SessionId)
	if err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	if d := s.delegateFor(MethodWriteTextFile); d != nil {
		return d.WriteTextFile(ctx, req)
	}
	p, err := s.roots.resolve(req.Path)
	if err != nil {
		return acp.WriteTextFileResponse{}, err
	}
	if _, err := atomicfile.MkdirAll(filepath.Dir(p)); err != nil {
		return acp.WriteTextFileResponse{}, acp.NewInternalError(map[string]any{"path": req.Path, "error": err.Error()})
	}
	if err := atomicfile.Write(p, []byte(req.Content), 0o644); err != nil {
		return acp.WriteTextFileResponse{}, acp.NewInternalError(map[string]any{"path": req.Path, "error": err.Error()})
	}
	return acp.WriteTextFileResponse{}, nil
}
