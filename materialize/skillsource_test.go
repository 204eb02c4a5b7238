package materialize

import (
	"testing"

	"github.com/actctl/actctl/schema"
)

// TestSkillFileKeepsSource: a SKILL.md whose frontmatter already holds the
// skill's name and description, with no variable filled, is written byte
// for byte (a standard SKILL.md has no blank line after the frontmatter,
// apply added one); one that lacks either, or whose text a variable
// fills, is rendered (name and description set, a blank line after).
func TestSkillFileKeepsSource(t *testing.T) {
	for _, c := range []struct{ name, src, desc, want string }{
		{"standard", "---\nname: s\ndescription: Does s.\n---\nBody.\n", "", "---\nname: s\ndescription: Does s.\n---\nBody.\n"},
		{"CRLF, comment, two blank lines", "---\r\nname: s # the name\r\ndescription: \"Does s.\"\r\nlicense: MIT\r\n---\r\n\r\n\r\nBody.", "", "---\r\nname: s # the name\r\ndescription: \"Does s.\"\r\nlicense: MIT\r\n---\r\n\r\n\r\nBody."},
		{"frontmatter only", "---\nname: s\ndescription: Does s.\n---\n", "", "---\nname: s\ndescription: Does s.\n---\n"},
		{"no name", "---\ndescription: Does s.\n---\nBody.\n", "", "---\nname: s\ndescription: Does s.\n---\n\nBody.\n"},
		{"another name", "---\nname: t\ndescription: Does s.\n---\nBody.\n", "", "---\nname: s\ndescription: Does s.\n---\n\nBody.\n"},
		{"the config's description", "---\nname: s\ndescription: Does s.\n---\nBody.\n", "Other.", "---\nname: s\ndescription: Other.\n---\n\nBody.\n"},
		{"a variable", "---\nname: s\ndescription: Does s.\n---\nOn {{repo}}.\n", "", "---\nname: s\ndescription: Does s.\n---\n\nOn acme/api.\n"},
		{"a name that is not a string", "---\nname: 1\ndescription: Does s.\n---\nBody.\n", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			sk := schema.Skill{Description: c.desc}
			if err := schema.SplitSkill(&sk, c.src); err != nil {
				t.Fatal(err)
			}
			name := "s"
			if c.want == "" { // the skill is named "1": its YAML value is an int
				name, c.want = "1", "---\nname: \"1\"\ndescription: Does s.\n---\n\nBody.\n"
			}
			got := renderSkill(schema.FormatSkillDir, name, skillDescription(name, &sk), &sk, map[string]string{"repo": "acme/api"}).content
			if string(got) != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}
