package engine

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"github.com/mmgate/mmgate/refworker"
	"github.com/mmgate/mmgate/shm"
	"github.com/mmgate/mmgate/tokenizer/tokenizertest"
)

// testCA issues certificates for the TLS tests.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// issue makes a leaf certificate for names (DNS names or IP addresses).
func (ca *testCA) issue(t *testing.T, client bool, names ...string) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: "leaf"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// startTLSWorker serves a reference worker over TLS on 127.0.0.1; with
// clientCAs, client certificates are required (mutual TLS).
func startTLSWorker(t *testing.T, cert tls.Certificate, clientCAs *x509.CertPool) string {
	t.Helper()
	reader, err := shm.NewReader(shm.ReaderOptions{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reader.Close() })
	srv, err := refworker.New(refworker.Options{ModelDir: demoModelDir(t), Tokenizer: tokenizertest.Qwen3(t), Reader: reader})
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if clientCAs != nil {
		cfg.ClientCAs, cfg.ClientAuth = clientCAs, tls.RequireAndVerifyClientCert
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(grpc.Creds(credentials.NewTLS(cfg)))
	srv.Register(g)
	go g.Serve(lis)
	t.Cleanup(g.Stop)
	return lis.Addr().String()
}

func TestWorkerTLS(t *testing.T) {
	ca, other := newTestCA(t), newTestCA(t)
	plainAddr := startTLSWorker(t, ca.issue(t, false, "127.0.0.1"), nil)
	mtlsAddr := startTLSWorker(t, ca.issue(t, false, "127.0.0.1"), ca.pool)
	namedAddr := startTLSWorker(t, ca.issue(t, false, "worker.internal"), nil)
	good := ca.issue(t, true, "gateway")
	stranger := other.issue(t, true, "gateway")
	cases := []struct {
		name  string
		url   string
		tls   *tls.Config
		ready bool
	}{
		{"server auth", "grpcs://" + plainAddr, &tls.Config{RootCAs: ca.pool}, true},
		{"untrusted server", "grpcs://" + plainAddr, &tls.Config{RootCAs: other.pool}, false},
		{"system roots do not know the test CA", "grpcs://" + plainAddr, nil, false},
		{"plaintext to a TLS worker", "grpc://" + plainAddr, &tls.Config{RootCAs: ca.pool}, false},
		{"mutual TLS", "grpcs://" + mtlsAddr, &tls.Config{RootCAs: ca.pool, Certificates: []tls.Certificate{good}}, true},
		{"mutual TLS without a client cert", "grpcs://" + mtlsAddr, &tls.Config{RootCAs: ca.pool}, false},
		{"mutual TLS with a refused client cert", "grpcs://" + mtlsAddr, &tls.Config{RootCAs: ca.pool, Certificates: []tls.Certificate{stranger}}, false},
		{"server name override", "grpcs://" + namedAddr, &tls.Config{RootCAs: ca.pool, ServerName: "worker.internal"}, true},
		{"server name mismatch", "grpcs://" + namedAddr, &tls.Config{RootCAs: ca.pool}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEngine(t, Options{Workers: []WorkerConfig{{URL: c.url, TLS: c.tls}}, HealthTimeout: 2 * time.Second, HealthInterval: time.Hour})
			if got := e.Ready(); got != c.ready {
				t.Fatalf("ready %v, want %v", got, c.ready)
			}
		})
	}
}

func TestTLSSettings(t *testing.T) {
	s, err := WorkerConfig{URL: "grpcs://h:1", TLS: &tls.Config{MinVersion: tls.VersionTLS10}}.settings()
	if err != nil || s.tls == nil || s.tls.MinVersion != tls.VersionTLS12 {
		t.Fatalf("%v %+v", err, s.tls)
	}
	s, err = WorkerConfig{URL: "grpc://h:1", TLS: &tls.Config{}}.settings()
	if err != nil || s.tls != nil {
		t.Fatalf("plaintext URL got TLS: %v", err)
	}
}
