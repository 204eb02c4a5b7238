package webhook

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/actctl/actctl/model"
)

// Endpoint is one declared webhook with its secret read.
type Endpoint struct {
	Name string
	// Secret is the HMAC key.
	Secret []byte
	// Signature is model.SignatureGitHub or model.SignatureHMAC.
	Signature string
	// Events, when set, are the only event types taken.
	Events []string
	// Header is the signature's header (for SignatureHMAC; default
	// DefaultHMACHeader).
	Header string
}

// The headers a delivery is read from (docs/runtime.md, "Webhooks").
const (
	GitHubSignatureHeader = "X-Hub-Signature-256"
	GitHubEventHeader     = "X-GitHub-Event"
	GitHubDeliveryHeader  = "X-GitHub-Delivery"
	DefaultHMACHeader     = "X-Signature-256"
	HMACEventHeader       = "X-Event-Type"
	HMACDeliveryHeader    = "X-Delivery-Id"
)

// Delivery is an accepted request: the data of the event webhook:NAME.
type Delivery struct {
	Webhook string `json:"-"`
	// Event is the event type (X-GitHub-Event, X-Event-Type); Delivery
	// its id (X-GitHub-Delivery, X-Delivery-Id), each empty when not sent.
	Event    string `json:"event"`
	Delivery string `json:"delivery"`
	// Headers are those that matter (kept), by canonical name.
	Headers map[string]string `json:"headers"`
	Payload json.RawMessage   `json:"payload"`
}

// Data is the delivery as an event's data: event, delivery, headers and
// payload (a JSON object, decoded).
func (d Delivery) Data() map[string]any {
	var payload any
	_ = json.Unmarshal(d.Payload, &payload) // checked when accepted
	return map[string]any{"event": d.Event, "delivery": d.Delivery, "headers": d.Headers, "payload": payload}
}

// kept are the headers a delivery carries into its event, besides those
// of its scheme.
var kept = []string{"Content-Type", "User-Agent", "X-Github-Hook-Id", "X-Github-Hook-Installation-Target-Id",
	"X-Github-Hook-Installation-Target-Type", GitHubEventHeader, GitHubDeliveryHeader, HMACEventHeader, HMACDeliveryHeader}

// Endpoints reads the secrets of the declared webhooks from the
// environment (getenv): a webhook whose variable is unset or empty is an
// error naming it, and no endpoint is returned.
func Endpoints(webhooks map[string]model.Webhook, getenv func(string) string) ([]Endpoint, error) {
	var out []Endpoint
	for _, name := range slices.Sorted(maps.Keys(webhooks)) {
		w := webhooks[name]
		secret := getenv(w.SecretEnv)
		if secret == "" {
			return nil, fmt.Errorf("webhook %s: its secret's environment variable %s is not set (webhooks.%s.secretEnv): set it to the secret the sender signs with", name, w.SecretEnv, name)
		}
		header := w.Header
		if header == "" {
			header = DefaultHMACHeader
		}
		if w.Signature == model.SignatureGitHub {
			header = GitHubSignatureHeader
		}
		out = append(out, Endpoint{Name: name, Secret: []byte(secret), Signature: w.Signature, Events: w.Events, Header: header})
	}
	return out, nil
}
