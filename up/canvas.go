package up

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/actctl/actctl/acpclient"
	"github.com/actctl/actctl/model"
)

// SetCanvas replaces an employee's live canvas (the MCP tool
// canvas_update, docs/dashboard.md): kept in its workspace so that it
// survives a restart of up. Another archetype, or HTML over MaxCanvas, is
// refused and nothing is written.
func (m *Manager) SetCanvas(agent, html string) error {
	a, err := m.agent(agent)
	if err != nil {
		return fmt.Errorf("canvas_update: %w", err)
	}
	a.mu.Lock()
	spec := a.spec
	a.mu.Unlock()
	if spec.Archetype != model.ArchEmployee {
		return fmt.Errorf("canvas_update: agent %s is a %s: only employees have a live canvas", agent, spec.Archetype)
	}
	if err := WriteCanvas(spec.Workspace, html); err != nil {
		return err
	}
	if m.opts.Canvas != nil {
		m.opts.Canvas(agent)
	}
	return nil
}

// Canvas returns an employee's canvas ("" when it has none).
func (m *Manager) Canvas(agent string) (string, error) {
	a, err := m.agent(agent)
	if err != nil {
		return "", err
	}
	a.mu.Lock()
	dir := a.spec.Workspace
	a.mu.Unlock()
	return ReadCanvas(dir)
}

// CanvasFile is the file, in an employee's workspace (its instance), that
// keeps its live canvas across restarts of up.
const CanvasFile = acpclient.CanvasFile

// MaxCanvas bounds a canvas's HTML.
const MaxCanvas = 256 << 10

// WriteCanvas replaces the canvas kept in dir with html, atomically (a
// temporary file renamed over it). HTML over MaxCanvas is refused and
// nothing is written.
func WriteCanvas(dir, html string) error {
	if len(html) > MaxCanvas {
		return fmt.Errorf("canvas_update: the HTML is %d bytes, over the bound of %d", len(html), MaxCanvas)
	}
	p := filepath.Join(dir, CanvasFile)
	f, err := os.CreateTemp(dir, ".canvas-*.tmp")
	if err != nil {
		return fmt.Errorf("write %s: %w", p, err)
	}
	_, err = f.WriteString(html)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", p, err)
	}
	return nil
}

// ReadCanvas returns the canvas kept in dir, "" when there is none. A
// file over MaxCanvas (not written by WriteCanvas) is refused.
func ReadCanvas(dir string) (string, error) {
	p := filepath.Join(dir, CanvasFile)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxCanvas {
		return "", fmt.Errorf("read %s: not a canvas actctl wrote (a regular file of at most %d bytes)", p, MaxCanvas)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", p, err)
	}
	return string(b), nil
}
