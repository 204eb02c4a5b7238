package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"

	"github.com/actctl/actctl/internal/layout"
)

// ErrNoUp is Dial's error when no actctl up runs for the workspace.
var ErrNoUp = errors.New("no actctl up is running for this workspace; start it with `actctl up`")

// ErrGone is wrapped by Do's error when the connection ends before the
// final frame.
var ErrGone = errors.New("actctl up went away before it answered")

// Client is one connection to the workspace's actctl up, for one request.
type Client struct {
	conn io.ReadWriteCloser // a socket, or kubectl's stdio (Connect)
	used bool
}

// Dial connects to the actctl up of the workspace at root. ErrNoUp when
// there is none: no socket (or no .actant directory, or no fallback
// directory), or a socket its up left behind when it died (nobody
// listens). A run directory or a fallback directory that is not private
// to us, or a socket that is not ours (RunDir), is refused before
// anything connects: the prompt's text goes to nobody else.
func Dial(root string) (*Client, error) {
	path := SocketPath(root)
	if err := checkSocketPath(path, root); err != nil {
		return nil, err
	}
	if err := checkClientDirs(path, root); errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, ErrNoUp // (ENOTDIR: .actant is a file; `actctl up` explains)
	} else if err != nil {
		return nil, err
	}
	if err := checkEntry(path, 0); errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, ErrNoUp
	} else if err != nil {
		return nil, err
	}
	conn, err := net.Dial("unix", path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || refused(err) {
			return nil, ErrNoUp
		}
		return nil, fmt.Errorf("connect to actctl up at %s: %w", path, err)
	}
	return &Client{conn: conn}, nil
}

// checkClientDirs checks the directories of the socket path: the run
// directory (RunDir) for the workspace's own socket, the fallback
// directory otherwise.
func checkClientDirs(path, root string) error {
	if path == layout.Path(root, layout.Run, layout.UpSocket) {
		_, err := RunDir(root, false)
		return err
	}
	return checkSocketDir(path, root, os.Getuid())
}

// Close closes the connection; Do does it itself.
func (c *Client) Close() error { return c.conn.Close() }

// Do sends req, passes each frame to onFrame (may be nil) in order and
// returns the final frame. Cancelling ctx closes the connection, which
// cancels the handler in up, and Do returns ctx's error. One Do per
// Client.
func (c *Client) Do(ctx context.Context, req Request, onFrame func(Frame)) (Final, error) {
	if c.used {
		return Final{}, errors.New("control: one request per connection: Dial again")
	}
	c.used = true
	defer c.conn.Close()
	stop := context.AfterFunc(ctx, func() { c.conn.Close() })
	defer stop()
	line, err := json.Marshal(req)
	if err != nil {
		return Final{}, fmt.Errorf("control: encode request: %w", err)
	}
	if _, err := c.conn.Write(append(line, '\n')); err != nil {
		return Final{}, broken(ctx, err)
	}
	dec := json.NewDecoder(c.conn)
	for {
		var w wire
		if err := dec.Decode(&w); err != nil {
			return Final{}, broken(ctx, err)
		}
		if w.Done {
			return Final{Error: w.Error, Code: w.Code, Result: w.Result}, nil
		}
		if onFrame != nil {
			onFrame(Frame{Kind: w.Kind, Data: w.Data})
		}
	}
}

// broken explains why a connection failed before the final frame.
func broken(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.As(err, &typ):
		return fmt.Errorf("actctl up answered something that is not a control frame: %w", err)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ErrGone
	}
	var ke *KubectlError
	if errors.As(err, &ke) {
		return ke
	}
	return fmt.Errorf("%w: %w", ErrGone, err)
}

// Upgrade sends req (OpLease) and, once up has accepted it, returns the
// connection as a raw byte stream in both directions; up's refusal is the
// error (a *ExitError with its message).
func (c *Client) Upgrade(req Request) (io.ReadWriteCloser, error) {
	if c.used {
		return nil, errors.New("control: one request per connection: Dial again")
	}
	c.used = true
	line, err := json.Marshal(req)
	if err == nil {
		_, err = c.conn.Write(append(line, '\n'))
	}
	if err != nil {
		c.conn.Close()
		return nil, broken(context.Background(), err)
	}
	br := bufio.NewReader(c.conn)
	answer, err := br.ReadBytes('\n')
	var w wire
	if err == nil {
		err = json.Unmarshal(answer, &w)
	}
	if err != nil {
		c.conn.Close()
		return nil, broken(context.Background(), err)
	}
	if err := (Final{Error: w.Error, Code: w.Code}).Err(); err != nil {
		c.conn.Close()
		return nil, err
	}
	return &stream{Reader: br, conn: c.conn}, nil
}

// stream reads what the answer's reader buffered, then the connection.
type stream struct {
	io.Reader
	conn io.ReadWriteCloser
}

func (s *stream) Write(p []byte) (int, error) { return s.conn.Write(p) }
func (s *stream) Close() error                { return s.conn.Close() }

// CloseWrite ends the client's side of the stream only, where the
// connection can (a lease client that is done: up then lets its sessions
// go idle and closes the stream).
func (s *stream) CloseWrite() error {
	if cw, ok := s.conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
