package access

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// ListenerTLS is the HTTP listener's TLS configuration from --tls-cert and
// --tls-key, or nil (plain HTTP) when neither is given.
func ListenerTLS(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		return nil, nil
	}
	if certFile == "" || keyFile == "" {
		return nil, errors.New("--tls-cert and --tls-key go together")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// WorkerTLS is the client TLS configuration for grpcs:// workers: trust
// roots from caFile (--worker-tls-ca; default: the system's), an optional
// client certificate for mutual TLS (--worker-tls-cert, --worker-tls-key),
// an optional server name to verify instead of the URL's host.
func WorkerTLS(caFile, certFile, keyFile, serverName string) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if caFile != "" {
		pool, err := readCertPool("--worker-tls-ca", caFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if (certFile == "") != (keyFile == "") {
		return nil, errors.New("--worker-tls-cert and --worker-tls-key go together")
	}
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("--worker-tls-cert/--worker-tls-key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// GRPCServerTLS is the reference worker's TLS configuration: its
// certificate, and with clientCA (--tls-client-ca) client certificates
// required and checked against it (mutual TLS). nil when no certificate is
// given.
func GRPCServerTLS(certFile, keyFile, clientCA string) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		if clientCA != "" {
			return nil, errors.New("--tls-client-ca needs --tls-cert and --tls-key")
		}
		return nil, nil
	}
	cfg, err := ListenerTLS(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	if clientCA != "" {
		pool, err := readCertPool("--tls-client-ca", clientCA)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs, cfg.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}

// readCertPool reads PEM certificates from file, given as the setting
// named setting.
func readCertPool(setting, file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s %s: no PEM certificate in the file", setting, file)
	}
	return pool, nil
}
