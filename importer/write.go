package importer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/actctl/actctl/internal/atomicfile"
	"github.com/actctl/actctl/reconcile"
	"github.com/actctl/actctl/schema"
)

// Write carries the plan out: skill directories moved, instruction files
// rewritten (each only if it still holds what Scan read), actant.cue
// created. On error what it did is undone; the returned undo undoes it
// all later (import undoes when the first apply does not adopt
// everything).
func (p *Plan) Write() (_ func() error, err error) {
	var undos []func() error
	undo := func() error {
		var errs []error
		for i := len(undos) - 1; i >= 0; i-- {
			errs = append(errs, undos[i]())
		}
		return errors.Join(errs...)
	}
	defer func() {
		if err != nil {
			if uerr := undo(); uerr != nil {
				err = fmt.Errorf("%w; undoing what import wrote also failed: %v", err, uerr)
			}
		}
	}()
	for _, m := range p.Moves {
		u, err := p.move(m)
		if err != nil {
			return nil, err
		}
		undos = append(undos, u)
	}
	for _, e := range p.Edits {
		u, err := p.edit(e)
		if err != nil {
			return nil, err
		}
		undos = append(undos, u)
	}
	cfg := filepath.Join(p.root, schema.FileName)
	f, err := os.OpenFile(cfg, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return nil, ErrExists
		}
		return nil, fmt.Errorf("create %s: %w", cfg, err)
	}
	undos = append(undos, func() error { return os.Remove(cfg) })
	_, werr := f.Write(p.Config)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("write %s: %w", cfg, werr)
	}
	return undo, nil
}

func (p *Plan) move(m Move) (func() error, error) {
	from := filepath.Join(p.root, filepath.FromSlash(m.From))
	to := filepath.Join(p.root, filepath.FromSlash(m.To))
	created, err := atomicfile.MkdirAll(filepath.Dir(to))
	if err != nil {
		return nil, fmt.Errorf("move %s: %w", m.From, err)
	}
	if _, err := os.Lstat(to); err == nil {
		return nil, errors.Join(fmt.Errorf("move %s: %s already exists", m.From, m.To), atomicfile.RemoveEmptyDirs(created))
	}
	if err := os.Rename(from, to); err != nil {
		return nil, errors.Join(fmt.Errorf("move %s to %s: %w", m.From, m.To, err), atomicfile.RemoveEmptyDirs(created))
	}
	return func() error {
		if err := os.Rename(to, from); err != nil {
			return fmt.Errorf("move %s back to %s: %w", m.To, m.From, err)
		}
		return atomicfile.RemoveEmptyDirs(created)
	}, nil
}

func (p *Plan) edit(e Edit) (func() error, error) {
	// Scan read e.Path inside the root; a link put there since is not
	// written through.
	if err := p.confined(e.Path); err != nil {
		return nil, fmt.Errorf("rewrite %s: %w", e.Path, err)
	}
	path := filepath.Join(p.root, filepath.FromSlash(e.Path))
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("rewrite %s: %w", e.Path, err)
	}
	check := func(want []byte) func(string) error {
		return func(target string) error {
			cur, err := os.ReadFile(target)
			if err != nil || string(cur) != string(want) {
				return fmt.Errorf("%s changed while import ran", e.Path)
			}
			return nil
		}
	}
	if err := atomicfile.WriteWith(path, e.New, atomicfile.Options{Perm: fi.Mode().Perm(), Check: check(e.Old)}); err != nil {
		return nil, fmt.Errorf("rewrite %s: %w", e.Path, err)
	}
	return func() error {
		if err := atomicfile.WriteWith(path, e.Old, atomicfile.Options{Perm: fi.Mode().Perm(), Check: check(e.New)}); err != nil {
			return fmt.Errorf("restore %s: %w", e.Path, err)
		}
		return nil
	}, nil
}

// Refused are the items of a dry-run apply of the imported config that
// mean apply would not adopt what import took as it is: a conflict, a
// skip, drift, a file kept as the user's, or anything deleted or
// restored. Creating a missing file and adding a block or key are fine
// (an agent's block in a file another agent's text is in, .gitignore).
func Refused(res *reconcile.Result) []reconcile.Item {
	var out []reconcile.Item
	for _, it := range res.Items {
		switch it.Action {
		case reconcile.ActCreate, reconcile.ActUpdate:
		default:
			out = append(out, it)
		}
	}
	return out
}
