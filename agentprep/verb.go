package agentprep

// Verb is the command a client of an agent runs. It names the command in
// what Prepare and Cleanup say, and decides what they do: a proxy serves
// the agent it picks and leaves it behind, run and chat check that the
// agent offers them and give a busy, one-shot or ephemeral-policy agent
// a temporary copy (docs/run.md).
type Verb string

// The verbs of the clients Prepare serves.
const (
	VerbProxy Verb = "proxy"
	VerbRun   Verb = "run"
	VerbChat  Verb = "chat"
	VerbTask  Verb = "task"
	// VerbResolve prepares the declared agent whose launch `actctl
	// resolve` prints (Materialize); the client then starts it itself.
	VerbResolve Verb = "resolve"
)

// keepsAgent reports whether the client leaves its agent as it found it
// when it goes away (a proxy): Cleanup then only marks it stopped.
func (v Verb) keepsAgent() bool { return v == VerbProxy }
