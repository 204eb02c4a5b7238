package testutil

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// Sign returns the signature of a webhook delivery's body under secret as
// GitHub sends it, "sha256=<hex>": the tests of package webhook and of
// up's listener sign with it, apart from the code they check.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}
