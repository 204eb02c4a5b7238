package materialize

import (
	"encoding/json"

	"github.com/actctl/actctl/schema"
)

// The functions below expose single renderings to package importer, which
// must know, before it writes an actant.cue, whether apply would write a
// file, key or value exactly as the repository already has it (docs/import.md).

// SkillFile is the SKILL.md apply writes for skill s named name in the
// Agent Skills layout, with no variables set (placeholders stay).
func SkillFile(name string, s *schema.Skill) []byte {
	return renderSkill(schema.FormatSkillDir, name, skillDescription(name, s), s, nil).content
}

// MCPEntry is the key and value apply writes for MCP server s named ref in
// dialect (schema.Dialect*): the key may differ from ref where the tool
// refuses the name.
func MCPEntry(dialect, ref string, s schema.MCPServer) (string, json.RawMessage, error) {
	d, err := dialectFor(&schema.MCPFile{Dialect: dialect, Format: dialectFormat(mcpDialect(dialect))})
	if err != nil {
		return "", nil, err
	}
	name, _ := serverKey(d, ref)
	v, _, err := mcpServerValue(d, name, s)
	if err != nil {
		return "", nil, err
	}
	return name, canonicalJSON(v), nil
}

// PermissionKeys are the managed keys apply writes for p in dialect, for
// an agent whose project workspace is dir.
func PermissionKeys(dir, dialect string, p schema.Permissions) ([]Key, error) {
	keys, _, err := permissionKeys(dir, true, dialect, p)
	return keys, err
}

// RuleFile is the path and bytes apply writes for skill s named name,
// which has paths, as a path-scoped rule in layout l (files.rules), with
// no variables set.
func RuleFile(l *schema.DirLayout, name string, s *schema.Skill) (string, []byte, error) {
	p, err := rulePath(l, name)
	if err != nil {
		return "", nil, err
	}
	return p, renderSkill(l.Format, name, skillDescription(name, s), s, nil).content, nil
}

// SubAgentFile is the path and bytes apply writes in layout l for a
// sub-agent template named name of backend (description desc, its one
// prompt's text, its subAgent value sa, nil for none), with no
// permissions and no variables set.
func SubAgentFile(l *schema.DirLayout, backend, name, desc, prompt string, sa *schema.SubAgent) (string, []byte, error) {
	s := subAgent{name: name, desc: desc, prompt: joinParagraphs(prompt), backend: backend, sa: sa}
	p, b, _, err := subAgentFile(l, s)
	return p, b, err
}

// CommandFile is the path and bytes apply writes for a command named
// name in layout l (description desc, prompt body), no variables set.
func CommandFile(l *schema.DirLayout, name, desc, body string) (string, []byte, error) {
	return commandFile(l, name, desc, body)
}
