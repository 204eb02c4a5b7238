package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/actctl/actctl/internal/layout"
)

// UIFile is the name, in the run directory, of the dashboard's record
// (docs/dashboard.md): where `actctl up` serves it, read by `actctl
// dashboard`.
const UIFile = "ui.json"

// UI is what ui.json holds.
type UI struct {
	URL string `json:"url"` // with the token: http://127.0.0.1:PORT/?token=...
	Pid int    `json:"pid"`
	// Start is the up's start time (launch.StartTime; 0 where unknown):
	// with Pid it names the up that wrote the record, and no other.
	Start uint64 `json:"start,omitempty"`
}

// WriteUI records ui in the workspace's run directory, mode 0600,
// replacing an older record (a link or another user's file is refused,
// as every entry of the run directory).
func WriteUI(root string, ui UI) (string, error) {
	dir, err := RunDir(root, true)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, UIFile)
	if err := checkEntry(p, 0o077); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	b, _ := json.Marshal(ui)
	tmp := p + ".tmp"
	_ = os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o600)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", tmp, err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, p)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("write %s: %w", p, err)
	}
	return p, nil
}

// ReadUI reads the dashboard's record of the workspace's running `actctl
// up`. Without one (no up, or one with --ui off) the error wraps
// fs.ErrNotExist; a record that is a link, another user's or open to
// others is refused.
func ReadUI(root string) (UI, error) {
	dir, err := RunDir(root, false)
	if err != nil {
		return UI{}, err
	}
	p := filepath.Join(dir, UIFile)
	if err := checkEntry(p, 0o077); err != nil {
		return UI{}, err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return UI{}, err
	}
	var ui UI
	if err := json.Unmarshal(b, &ui); err != nil || ui.URL == "" {
		return UI{}, fmt.Errorf("read %s: not a dashboard record (%v)", p, err)
	}
	return ui, nil
}

// RemoveUI removes the dashboard's record (at up's shutdown).
func RemoveUI(root string) error {
	p := layout.Path(root, layout.Run, UIFile)
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", p, err)
	}
	return nil
}
