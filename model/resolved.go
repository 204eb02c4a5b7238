package model

// Resolved is an agent with everything it refers to looked up and every
// default applied: the view the materializer, the proxy and the commands
// work from.
type Resolved struct {
	Name          string
	Agent         Agent
	TemplateName  string
	Template      Template
	BackendName   string
	Backend       Backend
	ArchetypeName string
	Archetype     Archetype
	// Vars are the template's vars overlaid with the agent's.
	Vars map[string]string
	// Permissions: the agent's override, else the template's; Unset when
	// neither gives any (no permission key is written, the client answers as
	// standard).
	Permissions Permissions
	LaunchMode  string
	// Dir is the absolute directory the agent is materialized into: its
	// workDir (default the workspace root) for project archetypes, else
	// $ACTANT_HOME/instances/<name>.
	Dir string
	// Conflict is the effective workDirConflict policy.
	Conflict string
}
