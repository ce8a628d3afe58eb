package e2e

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mmgate/mmgate/internal/testutil/procs"
)

// TestAPIKeys: keys from a flag, the environment and a file; /v1 needs one,
// /health never does, /metrics only with --metrics-auth; keys never logged.
func TestAPIKeys(t *testing.T) {
	shm := shmDir(t)
	w, _ := startWorker(t, shm)
	keyFile := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keyFile, []byte("# clients\nsk-file-key-0123456789\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, gw := startGateway(t, shm, "--worker", w, "--api-key", "sk-flag-key-0123456789", "--api-key-file", keyFile, "--metrics-auth")
	ctx := ctxT(t)
	params := openai.ChatCompletionNewParams{Model: "qwen3-vl", MaxTokens: openai.Int(4), Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}

	for _, key := range []string{"sk-flag-key-0123456789", "sk-file-key-0123456789"} {
		c := openai.NewClient(option.WithBaseURL(url+"/v1/"), option.WithAPIKey(key), option.WithMaxRetries(0))
		if _, err := c.Chat.Completions.New(ctx, params); err != nil {
			t.Fatalf("key %s: %v", key[:7], err)
		}
	}
	noKey := client(url) // key "unused"
	_, err := noKey.Chat.Completions.New(ctx, params)
	expectStatus(t, err, 401, "invalid_api_key")
	almost := openai.NewClient(option.WithBaseURL(url+"/v1/"), option.WithAPIKey("sk-flag-key-012345678"), option.WithMaxRetries(0))
	_, err = almost.Models.List(ctx)
	expectStatus(t, err, 401, "invalid_api_key")

	get := func(path, key string) int {
		req, _ := http.NewRequest("GET", url+path, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		r, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		return r.StatusCode
	}
	for _, c := range []struct {
		path, key string
		want      int
	}{
		{"/v1/models", "", 401}, {"/health", "", 200}, {"/health/ready", "", 200},
		{"/metrics", "", 401}, {"/metrics", "sk-file-key-0123456789", 200},
	} {
		if got := get(c.path, c.key); got != c.want {
			t.Errorf("GET %s (key %v): %d, want %d", c.path, c.key != "", got, c.want)
		}
	}
	logs := gw.Stderr.String()
	if strings.Contains(logs, "sk-flag-key") || strings.Contains(logs, "sk-file-key") {
		t.Errorf("an API key reached the log")
	}
	if !strings.Contains(logs, "api_keys=2") {
		t.Errorf("the configuration line does not count the keys")
	}
}

// TestCompletions: /v1/completions through openai-go, text and token-id
// prompts, logprobs in the legacy format, streaming with usage.
func TestCompletions(t *testing.T) {
	shm := shmDir(t)
	w, wp := startWorker(t, shm)
	url, gw := startGateway(t, shm, "--worker", w, "--log-level", "debug")
	c := client(url)
	ctx := ctxT(t)

	resp, err := c.Completions.New(ctx, openai.CompletionNewParams{
		Model:     "qwen3-vl",
		Prompt:    openai.CompletionNewParamsPromptUnion{OfString: openai.String("The capital of France is")},
		MaxTokens: openai.Int(12), N: openai.Int(2), Logprobs: openai.Int(2),
	}, option.WithHeader("X-Request-Id", "ops-cmpl-1"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Object != "text_completion" || resp.ID != "cmpl-ops-cmpl-1" || len(resp.Choices) != 2 {
		t.Fatalf("%+v", resp)
	}
	for i, ch := range resp.Choices {
		// The reference worker answers with a description of its prompt.
		if int(ch.Index) != i || !strings.HasPrefix(ch.Text, "prompt: ") || ch.FinishReason != "length" {
			t.Errorf("choice %d: %q %q", i, ch.Text, ch.FinishReason)
		}
		lp := ch.Logprobs
		if len(lp.Tokens) != 12 || len(lp.TokenLogprobs) != 12 || len(lp.TopLogprobs) != 12 || len(lp.TextOffset) != 12 {
			t.Fatalf("choice %d logprobs: %+v", i, lp)
		}
		if strings.Join(lp.Tokens, "") != ch.Text || lp.TextOffset[0] != 0 || len(lp.TopLogprobs[0]) == 0 {
			t.Errorf("choice %d: tokens %q vs text %q, offsets %v", i, lp.Tokens, ch.Text, lp.TextOffset)
		}
		for k := 1; k < len(lp.Tokens); k++ {
			if lp.TextOffset[k] != lp.TextOffset[k-1]+int64(len([]rune(lp.Tokens[k-1]))) {
				t.Errorf("text_offset %v for tokens %q", lp.TextOffset, lp.Tokens)
				break
			}
		}
	}
	if resp.Usage.PromptTokens != 5 || resp.Usage.CompletionTokens != 24 {
		t.Errorf("usage %+v", resp.Usage)
	}
	text := resp.Choices[0].Text

	// Token ids in: the same prompt gives the same answer.
	ids := []int64{785, 6722, 315, 9625, 374} // "The capital of France is", as `mmgate tokenize` encodes it
	byIDs, err := c.Completions.New(ctx, openai.CompletionNewParams{
		Model: "qwen3-vl", Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfTokens: ids}, MaxTokens: openai.Int(12),
	})
	if err != nil {
		t.Fatal(err)
	}
	if byIDs.Choices[0].Text != text || byIDs.Usage.PromptTokens != 5 {
		t.Errorf("token-id prompt: %q (%d prompt tokens), want %q", byIDs.Choices[0].Text, byIDs.Usage.PromptTokens, text)
	}

	stream := c.Completions.NewStreaming(ctx, openai.CompletionNewParams{
		Model: "qwen3-vl", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("The capital of France is")},
		MaxTokens: openai.Int(12), StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	var streamed strings.Builder
	chunks, finish, usage := 0, "", int64(0)
	for stream.Next() {
		ch := stream.Current()
		chunks++
		if ch.Object != "text_completion" {
			t.Fatalf("chunk object %q", ch.Object)
		}
		for _, choice := range ch.Choices {
			streamed.WriteString(choice.Text)
			if choice.FinishReason != "" {
				finish = string(choice.FinishReason)
			}
		}
		if ch.Usage.TotalTokens > 0 {
			usage = ch.Usage.TotalTokens
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if streamed.String() != text || finish != "length" || usage != 17 || chunks < 5 {
		t.Errorf("stream: %d chunks, finish %q, usage %d, text %q vs %q", chunks, finish, usage, streamed.String(), text)
	}

	_, err = c.Completions.New(ctx, openai.CompletionNewParams{Model: "qwen3-vl", Prompt: openai.CompletionNewParamsPromptUnion{OfArrayOfStrings: []string{"a", "b"}}})
	expectStatus(t, err, 400, "invalid_request_error")
	_, err = c.Completions.New(ctx, openai.CompletionNewParams{Model: "qwen3-vl", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("a")}, Echo: openai.Bool(true)})
	expectStatus(t, err, 400, "invalid_request_error")
	_, err = c.Completions.New(ctx, openai.CompletionNewParams{Model: "nope", Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String("a")}})
	expectStatus(t, err, 404, "model_not_found")

	// Every gateway line about the request carries its id, and the worker
	// got it as its request id.
	var lines []string
	for _, l := range strings.Split(gw.Stderr.String(), "\n") {
		if strings.Contains(l, "ops-cmpl-1") {
			lines = append(lines, l)
			if !strings.Contains(l, "request_id=ops-cmpl-1") {
				t.Errorf("line mentions the request without its request_id attribute: %s", l)
			}
		}
	}
	if !containsLine(lines, "msg=completion") || !containsLine(lines, "msg=access") {
		t.Errorf("want the pipeline's and the access line with the request id, got:\n%s", strings.Join(lines, "\n"))
	}
	_ = wp
}

func containsLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}

// pki is a throwaway CA with files for the TLS tests.
type pki struct {
	dir  string
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newPKI(t *testing.T, name string) *pki {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	p := &pki{dir: t.TempDir(), cert: cert, key: key, pool: x509.NewCertPool()}
	p.pool.AddCert(cert)
	writePEM(t, filepath.Join(p.dir, "ca.pem"), "CERTIFICATE", der)
	return p
}

func (p *pki) caFile() string { return filepath.Join(p.dir, "ca.pem") }

// issue writes NAME.pem and NAME-key.pem for a leaf valid for 127.0.0.1
// and localhost, for servers or clients, and returns their paths.
func (p *pki) issue(t *testing.T, name string, client bool) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	if client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.cert, &key.PublicKey, p.key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(p.dir, name+".pem"), filepath.Join(p.dir, name+"-key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "PRIVATE KEY", kder)
	return certFile, keyFile
}

func writePEM(t *testing.T, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTLS: HTTPS on the gateway's listener, and grpcs:// with mutual TLS to
// a worker; a gateway whose client certificate the worker does not trust
// never gets the worker.
func TestTLS(t *testing.T) {
	shm := shmDir(t)
	ca, stranger := newPKI(t, "ops CA"), newPKI(t, "stranger CA")
	wCert, wKey := ca.issue(t, "worker", false)
	gCert, gKey := ca.issue(t, "gateway", true)
	sCert, sKey := stranger.issue(t, "gateway", true)
	hCert, hKey := ca.issue(t, "https", false)

	waddr := procs.FreeAddr(t)
	start(t, "worker", "--model", modelDir, "--listen", waddr, "--shm-dir", shm,
		"--tls-cert", wCert, "--tls-key", wKey, "--tls-client-ca", ca.caFile())

	addr := procs.FreeAddr(t)
	start(t, "serve", "--listen", addr, "--shm-dir", shm, "--health-interval", "200ms", "--model", modelDir,
		"--worker", "grpcs://"+waddr, "--worker-tls-ca", ca.caFile(), "--worker-tls-cert", gCert, "--worker-tls-key", gKey,
		"--tls-cert", hCert, "--tls-key", hKey)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool}}}
	base := "https://" + addr
	waitFor(t, func() bool {
		r, err := hc.Get(base + "/health/ready")
		if err != nil {
			return false
		}
		r.Body.Close()
		return r.StatusCode == 200
	}, "TLS gateway ready")
	c := openai.NewClient(option.WithBaseURL(base+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0), option.WithHTTPClient(hc))
	ctx := ctxT(t)
	resp, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "qwen3-vl", MaxTokens: openai.Int(8), Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("over TLS")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Choices[0].Message.Content, "prompt: ") {
		t.Errorf("content %q", resp.Choices[0].Message.Content)
	}
	// Plain HTTP to the TLS listener is refused.
	if r, err := http.Get("http://" + addr + "/health"); err == nil {
		if r.StatusCode == 200 {
			t.Error("plain HTTP answered 200 on the TLS listener")
		}
		r.Body.Close()
	}
	// TLS below 1.2 is refused.
	old := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool, MaxVersion: tls.VersionTLS11}}}
	if r, err := old.Get(base + "/health"); err == nil {
		r.Body.Close()
		t.Error("a TLS 1.1 client was served")
	}

	// A gateway presenting a certificate from another CA: the worker
	// refuses the handshake, so the gateway has no healthy worker.
	url2, _ := startGatewayNoWait(t, shm, "--worker", "grpcs://"+waddr, "--worker-tls-ca", ca.caFile(),
		"--worker-tls-cert", sCert, "--worker-tls-key", sKey)
	time.Sleep(time.Second)
	r, err := http.Get(url2 + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 503 {
		t.Errorf("gateway with a refused client certificate: ready %d", r.StatusCode)
	}
	c2 := client(url2)
	_, err = c2.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "qwen3-vl", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
	})
	// The worker was never reached: its model is unknown (404) or it has
	// no healthy worker (503); never an answer.
	var ae *openai.Error
	if !errors.As(err, &ae) || ae.StatusCode != 404 && ae.StatusCode != 503 {
		t.Errorf("request through a refused gateway: %v", err)
	}
}

// startGatewayNoWait runs `mmgate serve` and waits only for its listener.
func startGatewayNoWait(t *testing.T, shm string, extra ...string) (string, *proc) {
	t.Helper()
	addr := procs.FreeAddr(t)
	args := append([]string{"serve", "--listen", addr, "--shm-dir", shm, "--health-interval", "200ms", "--model", modelDir}, extra...)
	p := start(t, args...)
	url := "http://" + addr
	waitFor(t, func() bool {
		r, err := http.Get(url + "/health")
		if err != nil {
			return false
		}
		r.Body.Close()
		return true
	}, "gateway listening")
	return url, p
}

// TestGracefulShutdown: SIGTERM with streams in flight. A short stream
// finishes; the long ones are cut after --shutdown-timeout with an error
// event and [DONE]; the worker sees their aborts; no segment is left; the
// gateway exits 0 promptly.
func TestGracefulShutdown(t *testing.T) {
	shm := shmDir(t)
	// --keep-shm: the worker leaves every segment it read, so that only
	// the gateway's shutdown can remove them.
	w, wp := startWorker(t, shm, "--token-delay", "40ms", "--keep-shm")
	url, gw := startGateway(t, shm, "--worker", w, "--shutdown-timeout", "1500ms", "--mm-transport", "shm", "--mm-shm-min-bytes", "1")
	img := dataURL(t, jpegFile(t, 96, 64, 7))

	type outcome struct {
		id       string
		finished bool // a finish_reason then [DONE]
		cut      bool // the shutting_down error event then [DONE]
		err      error
	}
	run := func(id string, maxTokens int, started chan<- struct{}) outcome {
		body := `{"model":"qwen3-vl","stream":true,"max_tokens":` + strconv.Itoa(maxTokens) +
			`,"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"` + img + `"}},{"type":"text","text":"describe"}]}]}`
		req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Request-Id", id)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			started <- struct{}{}
			return outcome{id: id, err: err}
		}
		defer resp.Body.Close()
		o := outcome{id: id}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		first, finish, errEvent := true, false, false
		for sc.Scan() {
			d, ok := strings.CutPrefix(sc.Text(), "data: ")
			if !ok {
				continue
			}
			if d == "[DONE]" {
				o.finished, o.cut = finish, errEvent
				break
			}
			if strings.Contains(d, `"content":"`) && first && !strings.Contains(d, `"content":""`) {
				first = false
				started <- struct{}{}
			}
			if strings.Contains(d, `"finish_reason":"`) {
				finish = true
			}
			if strings.Contains(d, `"shutting_down"`) {
				errEvent = true
			}
		}
		if first {
			started <- struct{}{}
		}
		if err := sc.Err(); err != nil {
			o.err = err
		}
		return o
	}

	const long = 4
	started := make(chan struct{}, long+1)
	results := make(chan outcome, long+1)
	var wg sync.WaitGroup
	for i := 0; i < long; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); results <- run("long-"+strconv.Itoa(i), 1000, started) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); results <- run("short-0", 10, started) }()
	for i := 0; i < long+1; i++ {
		<-started
	}
	// The worker keeps segments, so the gateway refills them: once answered,
	// a request's segment waits on the pool's idle list rather than being
	// held by the request. Either way the gateway's segments are there
	// before the shutdown and must be gone after it.
	if n := len(listShm(t, shm)); n < 1 {
		t.Fatalf("expected the gateway's segments in %s, found %d", shm, n)
	}
	t0 := time.Now()
	gw.Cmd.Process.Signal(syscall.SIGTERM)
	if !gw.Wait(10 * time.Second) {
		t.Fatal("the gateway did not exit within 10 s of SIGTERM")
	}
	took := time.Since(t0)
	if code := gw.Cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d", code)
	}
	if took > 8*time.Second {
		t.Errorf("shutdown took %v", took)
	}
	wg.Wait()
	close(results)
	for o := range results {
		switch {
		case o.err != nil:
			t.Errorf("%s: %v", o.id, o.err)
		case strings.HasPrefix(o.id, "short") && !o.finished:
			t.Errorf("%s was not allowed to finish", o.id)
		case strings.HasPrefix(o.id, "long") && !o.cut:
			t.Errorf("%s: not cut cleanly (finished %v)", o.id, o.finished)
		}
	}
	if left := listShm(t, shm); len(left) != 0 {
		t.Errorf("segments left after shutdown: %v", left)
	}
	logs := wp.Stderr.String()
	for i := 0; i < long; i++ {
		if !regexp.MustCompile(`msg=abort request_id=long-` + strconv.Itoa(i) + `\b`).MatchString(logs) {
			t.Errorf("the worker saw no abort for long-%d", i)
		}
	}
	if !strings.Contains(gw.Stderr.String(), "cutting the requests still in flight") {
		t.Errorf("no shutdown log line")
	}
}
