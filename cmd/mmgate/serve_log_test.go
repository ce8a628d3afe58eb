package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/mmgate/mmgate/internal/config"
	"github.com/mmgate/mmgate/internal/gateway"
	"github.com/mmgate/mmgate/shm"
)

// The effective-configuration line of `serve` has every flag (under its
// config key; a repeatable one in the plural), every key it has always
// had, the settings resolved at start in place of their flags, and no
// secret.
func TestServeConfigLog(t *testing.T) {
	args := []string{"--worker", "grpc://w:1", "--api-key", "sekret-a", "--api-key", "sekret-b", "--trusted-proxy", "10.0.0.0/8", "--no-exif"}
	l := serveLogLine(t, args)
	line, got := l.line, l.got
	if strings.Contains(line, "sekret") {
		t.Errorf("an API key is in the log: %s", line)
	}
	l.fs.VisitAll(func(fl *flag.Flag) {
		if _, ok := got[config.LogKey(fl)]; !ok {
			t.Errorf("--%s is not in the log (key %s)", fl.Name, config.LogKey(fl))
		}
	})
	for _, k := range []string{
		"version", "listen", "model", "workers", "embedded_worker", "max_body_bytes", "max_media_items", "max_in_flight",
		"cpu", "cache_bytes", "fetch_timeout", "fetch_max_bytes", "fetch_max_redirects", "fetch_allow_hosts",
		"fetch_allow_cidrs", "file_roots", "max_image_pixels", "rgba_background", "exif", "mm_transport",
		"mm_shm_min_bytes", "shm_dir", "shm_usable", "shm_size", "shm_budget", "shm_namespace_id", "shm_ttl",
		"shm_group", "health_interval", "max_message_size", "media_order", "policy", "heavy_nice", "heavy_idle",
		"gc_percent", "worker_stall_timeout", "shutdown_timeout", "decoders_exact", "api_keys", "metrics_auth", "tls",
		"worker_tls_ca", "worker_tls_client_cert", "worker_tls_server_name", "body_read_timeout", "body_min_rate",
		"body_rate_grace", "max_uploads", "max_upload_bytes", "queue_timeout", "client_stall_timeout",
		"client_max_in_flight", "client_rate", "client_burst", "trusted_proxies", "max_connections", "header_timeout",
		"max_header_bytes", "send_buffer_bytes", "served_model_names", "service_discovery", "selectors",
		"service_discovery_namespace", "service_discovery_port", "kubeconfig", "cache_threshold",
		"balance_abs_threshold", "balance_rel_threshold", "max_tree_size", "max_tree_age", "session_header",
		"max_tensor_bytes_in_flight", "max_tensor_bytes_in_flight_source", "machine_memory",
		"max_request_tensor_bytes", "tensor_memory_wait",
	} {
		if _, ok := got[k]; !ok {
			t.Errorf("%s is not in the log", k)
		}
	}
	workers, _ := got["workers"].([]any)
	proxies, _ := got["trusted_proxies"].([]any)
	if got["model"] != "/models/demo" || !slices.Equal(workers, []any{"grpc://w:1"}) || got["api_keys"] != 2.0 ||
		got["exif"] != false || got["no_exif"] != true || got["max_body_bytes"] != float64(64<<20) ||
		got["shm_budget"] != float64(l.shmBudget) || !slices.Equal(proxies, []any{"10.0.0.0/8"}) ||
		got["max_tensor_bytes_in_flight"] != float64(l.tensorBudget) || got["max_request_tensor_bytes"] != float64(l.tensorBudget) {
		t.Errorf("values: %s", line)
	}
	names, _ := got["served_model_names"].([]any)
	if !slices.Equal(names, []any{"demo"}) || got["policy"] != "least_loaded" || got["kubeconfig"] != "" {
		t.Errorf("fleet values: %s", line)
	}
}

// With --service-discovery the log gives the kubeconfig discovery reads
// ($KUBECONFIG when --kubeconfig is not given) and the policy's settings.
func TestServeConfigLogDiscovery(t *testing.T) {
	t.Setenv("KUBECONFIG", "/etc/kube/config")
	args := []string{"--service-discovery", "--selector", "app=worker", "--policy", "cache_aware", "--served-model-name", "qwen"}
	l := serveLogLine(t, args)
	line, got := l.line, l.got
	selectors, _ := got["selectors"].([]any)
	names, _ := got["served_model_names"].([]any)
	if got["kubeconfig"] != "/etc/kube/config" || got["service_discovery"] != true || !slices.Equal(selectors, []any{"app=worker"}) ||
		got["policy"] != "cache_aware" || got["cache_threshold"] != 0.5 || !slices.Equal(names, []any{"qwen"}) {
		t.Errorf("values: %s", line)
	}
}

// logLine is the effective-configuration line of serve as text and
// decoded, with the FlagSet it was parsed with and the budgets start-up
// resolved (the shared memory the pool probed, the tensor memory budget).
type logLine struct {
	line                    string
	got                     map[string]any
	fs                      *flag.FlagSet
	shmBudget, tensorBudget int64
}

// serveLogLine parses args as serve's flags and returns the
// effective-configuration line logEffective writes for them (model folder
// /models/demo).
func serveLogLine(t *testing.T, args []string) logLine {
	t.Helper()
	var errb bytes.Buffer
	fs := newFlagSet(&stdio{err: &errb}, "serve", "serve")
	var f serveFlags
	f.register(fs)
	addLogFlags(fs)
	if _, err := parseFlags(fs, args, nil); err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	c, err := f.validate()
	if err != nil {
		t.Fatal(err)
	}
	c.flags = fs
	pool, err := shm.New(shm.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	ctl, basis, err := gateway.NewAdmission(c.Budget, 0, nil)
	if err != nil || ctl.Budget() <= 0 {
		t.Fatalf("tensor memory budget: %v", err)
	}
	var buf bytes.Buffer
	logEffective(slog.New(slog.NewJSONHandler(&buf, nil)), c.flags, "mmgate serve", gateway.Effective(&c.Options, gateway.ServeFacts(&c.Options, "/models/demo", pool, basis)...))
	l := logLine{fs: fs, shmBudget: pool.Probe().Budget, tensorBudget: ctl.Budget()}
	l.line, _, _ = strings.Cut(buf.String(), "\n")
	if err := json.Unmarshal([]byte(l.line), &l.got); err != nil {
		t.Fatal(err)
	}
	return l
}
