package schema

import (
	"os"

	"github.com/actctl/actctl/model"
)

// The config's plain types and names are package model's, which the
// runtime imports without CUE (docs/design.md, "One job per package");
// schema names them too, so that a package reading the config needs
// only schema.

// The config's types.
type (
	NetworkPolicy    = model.NetworkPolicy
	ActctlInstall    = model.ActctlInstall
	Agent            = model.Agent
	AgentDeploy      = model.AgentDeploy
	AgentKubernetes  = model.AgentKubernetes
	Archetype        = model.Archetype
	Backend          = model.Backend
	Checkout         = model.Checkout
	Command          = model.Command
	Cron             = model.Cron
	Deploy           = model.Deploy
	DeployGitHub     = model.DeployGitHub
	DeployKubernetes = model.DeployKubernetes
	DeployRepo       = model.DeployRepo
	DeploySystemd    = model.DeploySystemd
	DirLayout        = model.DirLayout
	EventSpec        = model.EventSpec
	Files            = model.Files
	Heartbeat        = model.Heartbeat
	Hook             = model.Hook
	HookPrompt       = model.HookPrompt
	HookRun          = model.HookRun
	HubAuth          = model.HubAuth
	HubSource        = model.HubSource
	Ignore           = model.Ignore
	IgnoreFile       = model.IgnoreFile
	IgnoredKeys      = model.IgnoredKeys
	LayoutPath       = model.LayoutPath
	Liveness         = model.Liveness
	MCPFile          = model.MCPFile
	MCPServer        = model.MCPServer
	Permissions      = model.Permissions
	PermissionsFile  = model.PermissionsFile
	Prompt           = model.Prompt
	Ref              = model.Ref
	Resolved         = model.Resolved
	ResourceList     = model.ResourceList
	Resources        = model.Resources
	Schedule         = model.Schedule
	SettingsFile     = model.SettingsFile
	Shadows          = model.Shadows
	Skill            = model.Skill
	SlashCommand     = model.SlashCommand
	Storage          = model.Storage
	SubAgent         = model.SubAgent
	SubAgentNative   = model.SubAgentNative
	Template         = model.Template
	TemplateHook     = model.TemplateHook
	Trust            = model.Trust
	TrustWhen        = model.TrustWhen
	Webhook          = model.Webhook
)

// The config's names: events, modes, archetypes, policies, formats,
// dialects, deploy targets, signature schemes, defaults.
const (
	ArchEmployee         = model.ArchEmployee
	ArchRepo             = model.ArchRepo
	ArchService          = model.ArchService
	ArchTool             = model.ArchTool
	ConflictAppend       = model.ConflictAppend
	ConflictError        = model.ConflictError
	ConflictOverwrite    = model.ConflictOverwrite
	ConflictSkip         = model.ConflictSkip
	CwdClient            = model.CwdClient
	CwdWorkspace         = model.CwdWorkspace
	CwdWorkspaceClient   = model.CwdWorkspaceClient
	JobToken             = model.JobToken
	GitHubPrefix         = model.GitHubPrefix
	DefaultHookTimeout   = model.DefaultHookTimeout
	DefaultStallAfter    = model.DefaultStallAfter
	DefaultTurnTimeout   = model.DefaultTurnTimeout
	DialectAmp           = model.DialectAmp
	DialectAntigravity   = model.DialectAntigravity
	DialectClaude        = model.DialectClaude
	DialectCodex         = model.DialectCodex
	DialectCopilot       = model.DialectCopilot
	DialectCursor        = model.DialectCursor
	DialectDevin         = model.DialectDevin
	DialectGemini        = model.DialectGemini
	DialectGeneric       = model.DialectGeneric
	DialectGoose         = model.DialectGoose
	DialectOpenCode      = model.DialectOpenCode
	DialectPi            = model.DialectPi
	DialectQwen          = model.DialectQwen
	DialectVSCode        = model.DialectVSCode
	EventActctlStart     = model.EventActctlStart
	EventActctlStop      = model.EventActctlStop
	EventAgentCreated    = model.EventAgentCreated
	EventAgentDestroyed  = model.EventAgentDestroyed
	EventAgentModified   = model.EventAgentModified
	EventCronTick        = model.EventCronTick
	EventError           = model.EventError
	EventPluginError     = model.EventPluginError
	EventHeartbeatTick   = model.EventHeartbeatTick
	EventIdle            = model.EventIdle
	EventProcessCrash    = model.EventProcessCrash
	EventProcessRestart  = model.EventProcessRestart
	EventProcessStart    = model.EventProcessStart
	EventProcessStop     = model.EventProcessStop
	EventPromptAfter     = model.EventPromptAfter
	EventPromptBefore    = model.EventPromptBefore
	EventSessionEnd      = model.EventSessionEnd
	EventSessionStart    = model.EventSessionStart
	EventSourceUpdated   = model.EventSourceUpdated
	EventTaskDone        = model.EventTaskDone
	EventTaskFailed      = model.EventTaskFailed
	EventTaskStalled     = model.EventTaskStalled
	EventUserPrompt      = model.EventUserPrompt
	EventWebhook         = model.EventWebhook
	FormatAntigravitySub = model.FormatAntigravitySub
	FormatClaudeRules    = model.FormatClaudeRules
	FormatClaudeSub      = model.FormatClaudeSub
	FormatClineSub       = model.FormatClineSub
	FormatCodexSub       = model.FormatCodexSub
	FormatCopilotSub     = model.FormatCopilotSub
	FormatCursorMDC      = model.FormatCursorMDC
	FormatCursorSub      = model.FormatCursorSub
	FormatDevinSub       = model.FormatDevinSub
	FormatGeminiCommand  = model.FormatGeminiCommand
	FormatGeminiSub      = model.FormatGeminiSub
	FormatGlobTrigger    = model.FormatGlobTrigger
	FormatGlobsRules     = model.FormatGlobsRules
	FormatGooseSub       = model.FormatGooseSub
	FormatInstructions   = model.FormatInstructions
	FormatJSON           = model.FormatJSON
	FormatKiroSub        = model.FormatKiroSub
	FormatMarkdown       = model.FormatMarkdown
	FormatMarkdownSub    = model.FormatMarkdownSub
	FormatOpenCodeSub    = model.FormatOpenCodeSub
	FormatPathsRules     = model.FormatPathsRules
	FormatPlain          = model.FormatPlain
	FormatQwenSub        = model.FormatQwenSub
	FormatSkillDir       = model.FormatSkillDir
	FormatSteering       = model.FormatSteering
	FormatTOML           = model.FormatTOML
	IgnoreClaude         = model.IgnoreClaude
	IgnoreGitignore      = model.IgnoreGitignore
	InteractChat         = model.InteractChat
	InteractOpen         = model.InteractOpen
	InteractProxy        = model.InteractProxy
	InteractRun          = model.InteractRun
	InteractStart        = model.InteractStart
	LaunchACPBackground  = model.LaunchACPBackground
	LaunchACPService     = model.LaunchACPService
	LaunchDirect         = model.LaunchDirect
	LaunchOneShot        = model.LaunchOneShot
	MaterializeFull      = model.MaterializeFull
	MaterializeMinimal   = model.MaterializeMinimal
	MaxHookChain         = model.MaxHookChain
	ModeACP              = model.ModeACP
	ModeOpen             = model.ModeOpen
	ModeResolve          = model.ModeResolve
	PresetPermissive     = model.PresetPermissive
	PresetReadonly       = model.PresetReadonly
	PresetRestricted     = model.PresetRestricted
	PresetStandard       = model.PresetStandard
	RestartAlways        = model.RestartAlways
	RestartNever         = model.RestartNever
	RestartOnFailure     = model.RestartOnFailure
	ShapeCron            = model.ShapeCron
	ShapeResident        = model.ShapeResident
	SignatureGitHub      = model.SignatureGitHub
	SignatureHMAC        = model.SignatureHMAC
	StateBranch          = model.StateBranch
	StateCache           = model.StateCache
	StateArtifact        = model.StateArtifact
	DialectZed           = model.DialectZed
	DialectCrush         = model.DialectCrush
	DialectKimi          = model.DialectKimi
	DialectGrok          = model.DialectGrok
	DialectRoo           = model.DialectRoo
	FormatDeepagentsSub  = model.FormatDeepagentsSub
	StateNone            = model.StateNone
	TargetGitHub         = model.TargetGitHub
	TargetKubernetes     = model.TargetKubernetes
	TargetSystemd        = model.TargetSystemd
	WorkspaceInstance    = model.WorkspaceInstance
	WorkspaceProject     = model.WorkspaceProject
)

// The config's lists: every event, the hooks' events, the launch modes.
var (
	Events      = model.Events
	HookEvents  = model.HookEvents
	LaunchModes = model.LaunchModes
)

// EventHasAgent is model.EventHasAgent: whether events of this name
// concern one agent.
func EventHasAgent(name string) bool { return model.EventHasAgent(name) }

// UpRuns is model.UpRuns: whether `actctl up` runs agents of launch mode
// m.
func UpRuns(m string) bool { return model.UpRuns(m) }

// IsSSHURL is model.IsSSHURL: whether a git URL is an SSH one.
func IsSSHURL(url string) bool { return model.IsSSHURL(url) }

// ReadRegular is model.ReadRegular: the regular file p, at most limit
// bytes, anything else refused without blocking.
func ReadRegular(p string, limit int64) ([]byte, error) { return model.ReadRegular(p, limit) }

// OpenRegular is model.OpenRegular: p opened for reading if it is a
// regular file, checked before a byte is read.
func OpenRegular(p string) (*os.File, error) { return model.OpenRegular(p) }

// ProtectedTarget is model.ProtectedTarget: why a backend may not write
// at rel, or "".
func ProtectedTarget(rel string) string { return model.ProtectedTarget(rel) }

// ProtectedInWorkspace is model.ProtectedInWorkspace: ProtectedTarget for
// a path relative to the workspace root.
func ProtectedInWorkspace(rel string) string { return model.ProtectedInWorkspace(rel) }

// ProtectedDir is model.ProtectedDir: why no agent may write inside dir,
// or "".
func ProtectedDir(dir string) string { return model.ProtectedDir(dir) }

// SessionCwd is model.SessionCwd: dir refused as the session cwd of an
// agent of the workspace at root.
func SessionCwd(root, dir string) error { return model.SessionCwd(root, dir) }

// RelWithin is model.RelWithin: path relative to dir when path is dir or
// inside it.
func RelWithin(dir, path string) (string, bool) { return model.RelWithin(dir, path) }
