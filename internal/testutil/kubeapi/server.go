package kubeapi

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Options configure a Server.
type Options struct {
	// TLS serves HTTPS with a certificate for 127.0.0.1 signed by a CA that
	// Kubeconfig writes into the kubeconfig.
	TLS bool
	// Token, when set, is the bearer token every request must carry (else
	// 401 Unauthorized).
	Token string
	// NoWatchList refuses the streaming list with 422, as a server without
	// the WatchList feature does.
	NoWatchList bool
	// Addr is the listen address; empty means a free port on 127.0.0.1.
	Addr string
}

// Request is one request the server answered.
type Request struct {
	Kind      string // "list", "watch", "watchlist", "refused" (422), "unauthorized" (401)
	Path      string
	Selector  string // labelSelector as sent
	RV        string // resourceVersion as sent
	Namespace string // "" for /api/v1/pods
}

// Server is a scripted API server; see the package documentation.
type Server struct {
	opts  Options
	addr  string
	tls   *tls.Config
	caPEM []byte

	mu       sync.Mutex
	srv      *http.Server
	store    store
	watchers map[*watcher]struct{}
	requests []Request
}

// Start starts a server and stops it when the test ends.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	s := &Server{opts: o, addr: o.Addr, watchers: map[*watcher]struct{}{}}
	s.store.init()
	if o.TLS {
		if err := s.makeTLS(); err != nil {
			t.Fatalf("kubeapi: %v", err)
		}
	}
	if s.addr == "" {
		s.addr = "127.0.0.1:0"
	}
	if err := s.Start(); err != nil {
		t.Fatalf("kubeapi: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's base URL.
func (s *Server) URL() string {
	scheme := "http"
	if s.tls != nil {
		scheme = "https"
	}
	return scheme + "://" + s.addr
}

// Start (re)starts serving on the server's address after Stop, with its
// pods and history as Stop left them.
func (s *Server) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return errors.New("kubeapi: already serving")
	}
	var ln net.Listener
	var err error
	for range 50 { // the port may linger briefly after Stop
		if ln, err = net.Listen("tcp", s.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	s.addr = ln.Addr().String()
	if s.tls != nil {
		ln = tls.NewListener(ln, s.tls)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/pods", s.pods)
	mux.HandleFunc("GET /api/v1/namespaces/{ns}/pods", s.pods)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "no such path: "+r.URL.Path)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	s.srv = srv
	go func() { _ = srv.Serve(ln) }() // ends with Close
	return nil
}

// Stop closes the listener and every connection (watches end without a
// word, as when an API server dies). Start brings the server back.
func (s *Server) Stop() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	for w := range s.watchers {
		w.close(nil)
	}
	s.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// Requests returns the requests answered so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Count returns how many answered requests were of kind.
func (s *Server) Count(kind string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// Kubeconfig writes a kubeconfig for the server into dir (the token, the
// CA when TLS, and a context namespace that clients must not use for
// scoping) and returns its path.
func (s *Server) Kubeconfig(t testing.TB, dir string) string {
	t.Helper()
	cluster := map[string]any{"server": s.URL()}
	if s.caPEM != nil {
		cluster["certificate-authority-data"] = s.caPEM // []byte marshals as base64, as kubeconfig wants
	}
	user := map[string]any{}
	if s.opts.Token != "" {
		user["token"] = s.opts.Token
	}
	cfg := map[string]any{
		"apiVersion": "v1", "kind": "Config", "current-context": "test",
		"clusters": []any{map[string]any{"name": "test", "cluster": cluster}},
		"users":    []any{map[string]any{"name": "test", "user": user}},
		"contexts": []any{map[string]any{"name": "test", "context": map[string]any{
			"cluster": "test", "user": "test", "namespace": "context-namespace"}}},
	}
	b, err := json.Marshal(cfg) // JSON is YAML
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// makeTLS makes a CA and a server certificate for 127.0.0.1 signed by it.
func (s *Server) makeTLS() error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubeapi test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kube-apiserver"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	s.caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	s.tls = &tls.Config{
		MinVersion:   tls.VersionTLS12,
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
	}
	return nil
}

// writeStatus answers with a metav1.Status, as the API server does.
func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(status(code, reason, msg)) // the client may be gone
}

func status(code int, reason metav1.StatusReason, msg string) *metav1.Status {
	return &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: msg, Reason: reason, Code: int32(code),
	}
}
