package importer

import (
	"bytes"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/actctl/actctl/materialize"
	"github.com/actctl/actctl/schema"
)

// skillSrc is a skill taken into the config: the directory actant.cue
// names, and where it was found.
type skillSrc struct {
	dir   string // relative to the root, slash-separated
	found string // where import found it
	// rule is a path-scoped rule taken as a skill with paths, written
	// inline (dir is then empty).
	rule *schema.Skill
}

// scanSkills takes each <skills>/<name>/SKILL.md of a's backend.
func (p *Plan) scanSkills(a *agent) error {
	if a.b.Skills == "" {
		return nil
	}
	for _, e := range p.readDir(a, "skill", a.b.Skills) {
		rel := path.Join(a.b.Skills, e.Name())
		it := Item{Backend: a.b.Name, Kind: "skill", Name: e.Name(), Path: rel}
		if err := p.confined(rel); err != nil {
			p.leave(it, "%v", err)
			continue
		}
		if !e.IsDir() {
			p.leave(it, "not a skill directory (<name>/SKILL.md); left as it is")
			continue
		}
		p.skill(a, it)
	}
	return nil
}

// skill takes one skill directory, or says why not.
func (p *Plan) skill(a *agent, it Item) {
	name, rel := it.Name, it.Path
	if !nameRe.MatchString(name) {
		p.leave(it, "the name is not a valid actctl name (%s)", nameRe)
		return
	}
	if odd := irregular(filepath.Join(p.root, filepath.FromSlash(rel))); odd != "" {
		p.leave(it, "holds %s, which is not a regular file (apply refuses symlinks and special files in a skill directory)", odd)
		return
	}
	text, err := p.read(path.Join(rel, "SKILL.md"))
	if err != nil {
		p.leave(it, "no readable SKILL.md (%v)", err)
		return
	}
	var s schema.Skill
	if err := schema.SplitSkill(&s, string(text)); err != nil {
		p.leave(it, "SKILL.md frontmatter: %v", err)
		return
	}
	if other, ok := p.claimFor(a, rel); !ok {
		p.leave(it, "%s", sameAs(other))
		return
	}
	want := materialize.SkillFile(name, &s)
	exact := bytes.Equal(want, text)
	if prev, ok := p.skills[name]; ok {
		if !exact || !sameTree(filepath.Join(p.root, prev.found), filepath.Join(p.root, rel)) {
			p.leave(it, "a different skill of the same name was taken from %s", prev.found)
			return
		}
		a.skills = append(a.skills, name)
		p.take(it)
		return
	}
	src := &skillSrc{dir: rel, found: rel}
	switch {
	case p.opts.Move:
		to := path.Join("skills", name)
		if p.exists(to) {
			p.leave(it, "--move: %s already exists", to)
			return
		}
		if err := p.confined(to); err != nil {
			p.leave(it, "--move: %v", err)
			return
		}
		src.dir = to
		p.Moves = append(p.Moves, Move{From: rel, To: to})
	case !exact:
		p.leave(it, "SKILL.md is not byte for byte what apply writes for it (apply sets name and description in the frontmatter its own way: %s); --move keeps it under skills/%s and lets apply write this copy", firstDiff(text, want), name)
		return
	}
	p.skills[name] = src
	a.skills = append(a.skills, name)
	p.take(it)
}

// sameTree reports whether the directories a and b hold the same files
// with the same bytes.
func sameTree(a, b string) bool {
	files := func(root string) map[string][]byte {
		m := map[string][]byte{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := schema.ReadRegular(p, MaxFileSize)
			rel, _ := filepath.Rel(root, p)
			m[rel] = data
			return err
		})
		if err != nil {
			return nil
		}
		return m
	}
	fa, fb := files(a), files(b)
	if fa == nil || fb == nil || len(fa) != len(fb) {
		return false
	}
	for k, v := range fa {
		if w, ok := fb[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

// irregular returns the first path under dir (relative) that is neither
// a directory nor a regular file, or "".
func irregular(dir string) string {
	odd := ""
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			odd = p
			return filepath.SkipAll
		}
		if !d.IsDir() && !d.Type().IsRegular() {
			odd, _ = filepath.Rel(dir, p)
			return filepath.SkipAll
		}
		return nil
	})
	return odd
}
