package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

func TestAPIKeys(t *testing.T) {
	cases := []struct {
		name        string
		metricsAuth bool
		method      string
		path        string
		auth        string
		status      int
	}{
		{"no key", false, "POST", "/v1/chat/completions", "", 401},
		{"wrong key", false, "POST", "/v1/chat/completions", "Bearer nope", 401},
		{"prefix of a key", false, "POST", "/v1/chat/completions", "Bearer sk-tes", 401},
		{"not bearer", false, "POST", "/v1/chat/completions", "Basic sk-test", 401},
		{"right key", false, "POST", "/v1/chat/completions", "Bearer sk-test", 200},
		{"second key", false, "POST", "/v1/chat/completions", "Bearer other-key", 200},
		{"lower-case scheme", false, "POST", "/v1/chat/completions", "bearer sk-test", 200},
		{"models without key", false, "GET", "/v1/models", "", 401},
		{"models with key", false, "GET", "/v1/models", "Bearer sk-test", 200},
		{"completions without key", false, "POST", "/v1/completions", "", 401},
		{"unknown v1 route without key", false, "GET", "/v1/nope", "", 401},
		{"unknown v1 route with key", false, "GET", "/v1/nope", "Bearer sk-test", 404},
		{"health without key", false, "GET", "/health", "", 200},
		{"ready without key", false, "GET", "/health/ready", "", 200},
		{"metrics open by default", false, "GET", "/metrics", "", 200},
		{"metrics-auth without key", true, "GET", "/metrics", "", 401},
		{"metrics-auth wrong key", true, "GET", "/metrics", "Bearer x", 401},
		{"metrics-auth with key", true, "GET", "/metrics", "Bearer sk-test", 200},
		{"metrics-auth health stays open", true, "GET", "/health", "", 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var logs bytes.Buffer
			ts := newTest(t, &fakeBackend{reply: "x", ready: true}, func(o *Options) {
				o.APIKeys = []string{"sk-test", "", "other-key"}
				o.MetricsAuth = c.metricsAuth
				o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
			})
			body := ""
			if c.method == "POST" {
				body = simple + `}`
				if c.path == "/v1/completions" {
					body = `{"model":"demo","prompt":"hi"}`
				}
			}
			req, _ := http.NewRequest(c.method, ts.URL+c.path, strings.NewReader(body))
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, b)
			}
			if c.status == 401 {
				var e struct {
					Error map[string]any `json:"error"`
				}
				if err := json.Unmarshal(b, &e); err != nil {
					t.Fatalf("%v: %s", err, b)
				}
				if e.Error["type"] != "authentication_error" || e.Error["code"] != "invalid_api_key" || e.Error["message"] == "" {
					t.Errorf("error body %s", b)
				}
				if p, ok := e.Error["param"]; !ok || p != nil {
					t.Errorf("param must be null: %s", b)
				}
				if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
					t.Errorf("WWW-Authenticate %q", resp.Header.Get("WWW-Authenticate"))
				}
				if resp.Header.Get("X-Request-Id") == "" {
					t.Error("no X-Request-Id on a 401")
				}
			}
			if strings.Contains(logs.String(), "sk-test") || strings.Contains(logs.String(), "other-key") {
				t.Errorf("a key reached the log:\n%s", logs.String())
			}
		})
	}
}

func TestNoKeysMeansOpen(t *testing.T) {
	ts := newTest(t, &fakeBackend{reply: "x"}, func(o *Options) { o.APIKeys = []string{""} })
	r := post(t, ts.URL, simple+`}`)
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("status %d", r.StatusCode)
	}
}

func TestKeyringTiming(t *testing.T) {
	// The comparison works on digests: keys of any length are compared in
	// full, and a key never matches a prefix or extension of itself.
	k := newKeyring([]string{"abc", "", "xyz"})
	for _, tc := range []struct {
		h    string
		ok   bool
		name string
	}{{"Bearer abc", true, "key#0"}, {"Bearer xyz", true, "key#1"}, {"Bearer abcd", false, ""}, {"Bearer ab", false, ""},
		{"Bearer  abc ", true, "key#0"}, {"Bearer", false, ""}, {"", false, ""}} {
		r, _ := http.NewRequest("GET", "/", nil)
		if tc.h != "" {
			r.Header.Set("Authorization", tc.h)
		}
		if name, got := k.allows(r); got != tc.ok || name != tc.name {
			t.Errorf("%q: %v %q, want %v %q", tc.h, got, name, tc.ok, tc.name)
		}
	}
}

func TestRequestLoggerCarriesID(t *testing.T) {
	var logs bytes.Buffer
	b := &logBackend{fakeBackend: fakeBackend{reply: "x"}}
	ts := newTest(t, b, func(o *Options) { o.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	r := post(t, ts.URL, simple+`}`, "X-Request-Id", "rid-42")
	r.Body.Close()
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) < 2 {
		t.Fatalf("want the backend's line and the access line:\n%s", logs.String())
	}
	for _, l := range lines {
		if !strings.Contains(l, "request_id=rid-42") {
			t.Errorf("line without the request id: %s", l)
		}
	}
}
