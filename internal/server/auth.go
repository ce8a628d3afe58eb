package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/mmgate/mmgate/internal/apierr"
)

// keyring holds the SHA-256 digests of the accepted API keys. Comparing
// fixed-length digests in constant time, and always against every key,
// keeps both a key's bytes and its length out of the response timing.
type keyring struct {
	sums [][sha256.Size]byte
}

func newKeyring(keys []string) *keyring {
	k := &keyring{}
	for _, key := range keys {
		if key == "" {
			continue
		}
		k.sums = append(k.sums, sha256.Sum256([]byte(key)))
	}
	return k
}

// enabled reports whether any key is configured.
func (k *keyring) enabled() bool { return len(k.sums) > 0 }

// allows reports whether the request carries `Authorization: Bearer <key>`
// with a configured key.
func (k *keyring) allows(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return false
	}
	sum := sha256.Sum256([]byte(token))
	match := 0
	for i := range k.sums {
		match |= subtle.ConstantTimeCompare(sum[:], k.sums[i][:])
	}
	return match == 1
}

// errUnauthorized is the 401 body: OpenAI's invalid_api_key error.
func errUnauthorized(r *http.Request) *apierr.Error {
	msg := "Incorrect API key provided. Send it in the header `Authorization: Bearer KEY`."
	if r.Header.Get("Authorization") == "" {
		msg = "You didn't provide an API key. Send it in the header `Authorization: Bearer KEY`."
	}
	return apierr.New(http.StatusUnauthorized, apierr.TypeAuthentication, "invalid_api_key", msg, "")
}

// authorized checks the request's key when keys are configured; on failure
// it writes the 401 (with WWW-Authenticate) and returns false.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if !s.keys.enabled() || s.keys.allows(r) {
		return true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="mmgate"`)
	s.writeError(w, r, errUnauthorized(r))
	return false
}
