package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
)

// This file answers: which API keys does the gateway accept, and which TLS
// settings do its listener and its worker connections use?

// loadAPIKeys gathers --api-key values and the lines of --api-key-file (one
// key per line; blank lines and lines starting with # are skipped).
func loadAPIKeys(keys []string, file string) ([]string, error) {
	var out []string
	for _, k := range keys {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, k)
		}
	}
	if file == "" {
		return out, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("--api-key-file: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--api-key-file %s: %w", file, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--api-key-file %s: no key in the file", file)
	}
	return out, nil
}

// listenerTLS is the HTTP listener's TLS configuration (TLS 1.2 or later),
// or nil when neither --tls-cert nor --tls-key is given.
func listenerTLS(certFile, keyFile string) (*tls.Config, error) {
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

// readCertPool reads PEM certificates from file.
func readCertPool(flagName, file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flagName, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s %s: no PEM certificate in the file", flagName, file)
	}
	return pool, nil
}

// workerTLS is the client TLS configuration for grpcs:// workers: trust
// roots from caFile (default: the system's), an optional client certificate
// for mutual TLS, an optional server name to verify instead of the URL's
// host.
func workerTLS(caFile, certFile, keyFile, serverName string) (*tls.Config, error) {
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

// grpcServerTLS is the reference worker's TLS configuration: its
// certificate, and with clientCA, client certificates required and checked
// against it (mutual TLS). nil when no certificate is given.
func grpcServerTLS(certFile, keyFile, clientCA string) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		if clientCA != "" {
			return nil, errors.New("--tls-client-ca needs --tls-cert and --tls-key")
		}
		return nil, nil
	}
	cfg, err := listenerTLS(certFile, keyFile)
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

// lookupGroup resolves --shm-group (a group name or a numeric GID); "" is
// -1 (owner-only segments).
func lookupGroup(g string) (int, error) {
	if g == "" {
		return -1, nil
	}
	if id, err := strconv.Atoi(g); err == nil {
		if id < 0 {
			return 0, fmt.Errorf("--shm-group %q: a GID is not negative", g)
		}
		return id, nil
	}
	grp, err := user.LookupGroup(g)
	if err != nil {
		return 0, fmt.Errorf("--shm-group: %w", err)
	}
	return strconv.Atoi(grp.Gid)
}
