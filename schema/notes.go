package schema

// geminiRetired is the note validate gives once when a template uses the
// gemini backend (docs/formats.md "gemini"; mcpbundles.com Gemini CLI guide).
const geminiRetired = "note: Gemini CLI stopped serving individual accounts (Google AI Pro and Ultra, free Gemini Code Assist) on 2026-06-18; " +
	"it still works with Gemini API keys and Code Assist Standard or Enterprise. For an individual account use backend \"antigravity\" (Antigravity CLI, agy)"

// backendNotes are warnings about backends themselves, each said once.
func (c *Config) backendNotes() Diagnostics {
	for _, name := range localKeys(c.Templates) {
		if c.Templates[name].Backend == "gemini" {
			d := c.Diag(Path("templates", name, "backend"), "%s", geminiRetired)
			d.Warning = true
			return Diagnostics{d}
		}
	}
	return nil
}
