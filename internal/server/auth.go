package server

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"

	"github.com/mmgate/mmgate/internal/apierr"
)

// keyring holds the SHA-256 digests of the accepted API keys. Comparing
// fixed-length digests in constant time, and always against every key,
// keeps both a key's bytes and its length out of the response timing.
type keyring struct {
	sums [][sha256.Size]byte
	// names are what per-client limits count each key's requests under.
	names []string
}

func newKeyring(keys []string) *keyring {
	k := &keyring{}
	for _, key := range keys {
		if key == "" {
			continue
		}
		k.sums = append(k.sums, sha256.Sum256([]byte(key)))
		k.names = append(k.names, "key#"+strconv.Itoa(len(k.names)))
	}
	return k
}

// enabled reports whether any key is configured.
func (k *keyring) enabled() bool { return len(k.sums) > 0 }

// allows reports whether the request carries `Authorization: Bearer <key>`
// with a configured key, and which (its name).
func (k *keyring) allows(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	if token == "" {
		return "", false
	}
	sum := sha256.Sum256([]byte(token))
	match := -1
	for i := range k.sums {
		// Every key is compared; the index is chosen without a branch on
		// the comparison.
		eq := subtle.ConstantTimeCompare(sum[:], k.sums[i][:])
		match = subtle.ConstantTimeSelect(eq, i, match)
	}
	if match < 0 {
		return "", false
	}
	return k.names[match], true
}

// errUnauthorized is the 401 body: OpenAI's invalid_api_key error.
func errUnauthorized(r *http.Request) *apierr.Error {
	msg := "Incorrect API key provided. Send it in the header `Authorization: Bearer KEY`."
	if r.Header.Get("Authorization") == "" {
		msg = "You didn't provide an API key. Send it in the header `Authorization: Bearer KEY`."
	}
	return apierr.New(http.StatusUnauthorized, apierr.TypeAuthentication, "invalid_api_key", msg, "")
}

// authorized checks the request's key when keys are configured and
// returns its name ("" without keys); on failure it writes the 401 (with
// WWW-Authenticate) and returns false.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) (string, bool) {
	if !s.keys.enabled() {
		return "", true
	}
	if name, ok := s.keys.allows(r); ok {
		return name, true
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="mmgate"`)
	s.writeError(w, r, errUnauthorized(r))
	return "", false
}
