package model

// Webhook is an endpoint of `actctl up --webhooks` (docs/runtime.md,
// "Webhooks"): POST /webhooks/NAME, its body signed with HMAC-SHA256 under
// the secret in the environment variable SecretEnv.
type Webhook struct {
	SecretEnv string `json:"secretEnv"`
	// Signature is SignatureGitHub or SignatureHMAC.
	Signature string `json:"signature"`
	// Events, when set, are the only event types taken (X-GitHub-Event).
	Events []string `json:"events,omitempty"`
	// Header is the signature's header for SignatureHMAC (default
	// X-Signature-256).
	Header string `json:"header,omitempty"`
}

// The signature schemes of a webhook.
const (
	SignatureGitHub = "github"
	SignatureHMAC   = "hmac-sha256"
)
