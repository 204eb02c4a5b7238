package schema

import (
	"errors"
	"fmt"

	"cuelang.org/go/cue/token"

	"github.com/actctl/actctl/internal/frontmatter"
)

// SplitSkill takes the YAML frontmatter out of a skill's text (SKILL.md,
// a skill file, or inline content): s.Meta keeps every field of it,
// s.Content becomes the body, and s.Description is the frontmatter's
// description unless the config already gave one. Invalid frontmatter is
// an error whose Line is in text (see frontmatter.Split); the schema and
// the hub both read skills through here.
func SplitSkill(s *Skill, text string) error {
	meta, body, err := frontmatter.Split(text)
	if err != nil {
		return err
	}
	desc, ok, err := meta.Text("description")
	if err != nil {
		return err
	}
	s.Meta, s.Content = meta, body
	if s.Description == "" && ok {
		s.Description = desc
	}
	return nil
}

// skillDiag reports a SplitSkill error: at its line in file when the text
// came from a file, else at the config field (inline content).
func (c *Config) skillDiag(path, file, text string, err error) Diagnostic {
	var fe *frontmatter.Error
	if file != "" && errors.As(err, &fe) {
		return Diagnostic{Pos: FilePos(file, []byte(text), fe.Offset), Path: path, Message: "frontmatter: " + fe.Msg}
	}
	if file != "" {
		return Diagnostic{Pos: FilePos(file, []byte(text), 0), Path: path, Message: fmt.Sprintf("frontmatter: %v", err)}
	}
	return c.Diag(path, "frontmatter: %v", err)
}

// FilePos is the position of byte offset in a file holding data, for
// diagnostics about files that are not CUE (SKILL.md, hub JSON).
func FilePos(name string, data []byte, offset int) token.Pos {
	f := token.NewFile(name, -1, len(data)+1)
	f.SetLinesForContent(data)
	if offset < 0 || offset > len(data) {
		offset = 0
	}
	return f.Pos(offset, token.NoRelPos)
}
