package acpclient

import (
	"bytes"
	"io"
)

// lineTee passes the backend's stdout to the SDK unchanged and hands every
// complete line (one JSON-RPC message) to fn first.
type lineTee struct {
	r   io.Reader
	fn  func([]byte)
	buf []byte
}

func (t *lineTee) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	data := p[:n]
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			t.buf = append(t.buf, data...)
			break
		}
		line := append(t.buf, data[:i]...)
		t.buf = nil
		if len(bytes.TrimSpace(line)) > 0 {
			t.fn(bytes.TrimRight(line, "\r"))
		}
		data = data[i+1:]
	}
	return n, err
}

// Gate returns a reader that reads nothing from r until open is closed:
// an SDK connection starts reading at once, and its reader must not race
// with the connection's setup (SetLogger).
func Gate(r io.Reader, open <-chan struct{}) io.Reader { return gated{r, open} }

type gated struct {
	r    io.Reader
	open <-chan struct{}
}

func (g gated) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}
