package acptestagent

import (
	"os"

	acp "github.com/coder/acp-go-sdk"
)

// AuthMethodsVar, set to 1, makes initialize list two authMethods: an
// agent method "test-login" ("Log in with the test agent") and an
// environment-variable method "test-key" ("API key", TEST_API_KEY).
const AuthMethodsVar = "ACTCTL_TEST_AUTH_METHODS"

// authMethods is what initialize lists (see AuthMethodsVar).
func authMethods() []acp.AuthMethod {
	if os.Getenv(AuthMethodsVar) != "1" {
		return nil
	}
	return []acp.AuthMethod{
		{Agent: &acp.AuthMethodAgent{Id: "test-login", Name: "Log in with the test agent"}},
		{EnvVar: &acp.AuthMethodEnvVarInline{Type: "env_var", Id: "test-key", Name: "API key", Vars: []acp.AuthEnvVar{{Name: "TEST_API_KEY"}}}},
	}
}

// LoginHint is the message of the error autherror-data answers with.
const LoginHint = "Not logged in. Run `testagent login` in a terminal, then try again."

// ErrorDetails is the details of the error error-data answers with.
const ErrorDetails = "quota exceeded: retry after 1h"

// Error answers, as real agents give them (pi, claude-agent-acp):
//
//	autherror-data  answers the prompt with "Authentication required"
//	                whose data is {"message": LoginHint, "authMethods":
//	                [{"id": "data-login", "name": "Log in (data)"}]}
//	error-data      answers the prompt with "Internal error" whose data
//	                is {"details": ErrorDetails, "code": 429}
//	text-tool       "partial" (no newline), a completed tool call "look"
//	                of kind read, then " rest\n": a tool line in the
//	                middle of streamed text
func init() {
	register("autherror-data", func(*Turn) (acp.StopReason, error) {
		return "", acp.NewAuthRequired(map[string]any{"message": LoginHint,
			"authMethods": []map[string]string{{"id": "data-login", "name": "Log in (data)"}}})
	})
	register("error-data", func(*Turn) (acp.StopReason, error) {
		return "", &acp.RequestError{Code: -32603, Message: "Internal error", Data: map[string]any{"details": ErrorDetails, "code": 429}}
	})
	register("text-tool", func(t *Turn) (acp.StopReason, error) {
		t.Say("partial")
		_ = t.Conn().SessionUpdate(t.Ctx, acp.SessionNotification{SessionId: t.SID, Update: acp.StartToolCall("tt-1", "look",
			acp.WithStartKind(acp.ToolKindRead), acp.WithStartStatus(acp.ToolCallStatusCompleted))})
		t.Say(" rest\n")
		return acp.StopReasonEndTurn, nil
	})
}
