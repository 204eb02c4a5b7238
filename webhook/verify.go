package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/actctl/actctl/model"
)

var (
	errUnsigned = errors.New("no signature")
	errBadSig   = errors.New("the signature does not match the body")
)

// signature is the signature in h under e: GitHub's "sha256=<hex>", or
// for hmac-sha256 that or bare hex. A request without one, or with one
// of another shape, is refused by it before its body is read.
func (e Endpoint) signature(h http.Header) ([]byte, error) {
	got := strings.TrimSpace(h.Get(e.Header))
	if got == "" {
		return nil, errUnsigned
	}
	hexSig, prefixed := strings.CutPrefix(got, "sha256=")
	if !prefixed && e.Signature == model.SignatureGitHub {
		return nil, errBadSig
	}
	sig, err := hex.DecodeString(hexSig)
	if err != nil || len(sig) != sha256.Size {
		return nil, errBadSig
	}
	return sig, nil
}

// verify checks that sig (signature's) signs body under e's secret. The
// comparison takes the same time whatever the signature's bytes.
func (e Endpoint) verify(sig, body []byte) error {
	m := hmac.New(sha256.New, e.Secret)
	m.Write(body)
	if !hmac.Equal(sig, m.Sum(nil)) {
		return errBadSig
	}
	return nil
}

// eventOf is the delivery's event type and id under e's scheme.
func (e Endpoint) eventOf(h http.Header) (event, id string) {
	if e.Signature == model.SignatureGitHub {
		return h.Get(GitHubEventHeader), h.Get(GitHubDeliveryHeader)
	}
	return h.Get(HMACEventHeader), h.Get(HMACDeliveryHeader)
}

// eventHeader is the header eventOf reads the event type from.
func (e Endpoint) eventHeader() string {
	if e.Signature == model.SignatureGitHub {
		return GitHubEventHeader
	}
	return HMACEventHeader
}
