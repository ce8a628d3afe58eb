package kube

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/mmgate/mmgate/internal/testutil/kubeapi"
)

var vl = map[string]string{"app": "vl"}

// startScripted starts a TLS API server with a token, a Discovery on its
// kubeconfig watching namespace ns with the selector app=vl, and returns
// both with the test sink.
func startScripted(t *testing.T, o kubeapi.Options, ns string) (*kubeapi.Server, *Discovery, *testSink) {
	t.Helper()
	o.TLS, o.Token = true, "s3cret-token"
	srv := kubeapi.Start(t, o)
	sink := newTestSink(t)
	var logger *slog.Logger
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	d, err := New(Options{Selector: []string{"app=vl"}, Namespace: ns, Sink: sink, Logger: logger,
		Kubeconfig: srv.Kubeconfig(t, t.TempDir())})
	if err != nil {
		t.Fatal(err)
	}
	return srv, d, sink
}

// TestScripted runs the informer against the scripted API server, with the
// streaming list (client-go's first choice) and against a server that
// refuses it (list, then watch): add, not ready, ready again, terminating,
// delete, a pod restarted on the same IP, a dropped watch, 410 Gone with a
// change only a re-list can see, and an API server restart that lost its
// history.
func TestScripted(t *testing.T) {
	for _, mode := range []string{"watchlist", "list+watch"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			scripted(t, kubeapi.Options{NoWatchList: mode != "watchlist"})
		})
	}
}

func scripted(t *testing.T, o kubeapi.Options) {
	srv, d, sink := startScripted(t, o, "ml")
	srv.Apply(kubeapi.Pod("ml", "w1", "127.0.0.2", vl))
	w2 := kubeapi.Pod("ml", "w2", "127.0.0.3", vl)
	kubeapi.SetReady(w2, false)
	srv.Apply(w2)
	srv.Apply(kubeapi.Pod("ml", "unlabelled", "127.0.0.4", map[string]string{"app": "other"}))
	srv.Apply(kubeapi.Pod("elsewhere", "w9", "127.0.0.9", vl))
	runDiscovery(t, d)
	sink.waitPods(t, "initial", "w1 grpc://127.0.0.2:50051")
	checkFirstRequests(t, srv, o.NoWatchList)

	setReady := func(name string, ready bool) {
		srv.Update("ml", name, func(p *corev1.Pod) { kubeapi.SetReady(p, ready) })
	}
	setReady("w2", true)
	sink.waitPods(t, "w2 ready", "w1 grpc://127.0.0.2:50051", "w2 grpc://127.0.0.3:50051")
	setReady("w1", false)
	sink.waitPods(t, "w1 not ready", "w2 grpc://127.0.0.3:50051")
	setReady("w1", true)
	sink.waitPods(t, "w1 ready again", "w1 grpc://127.0.0.2:50051", "w2 grpc://127.0.0.3:50051")
	srv.Terminate("ml", "w2") // still Ready: out at once all the same
	sink.waitPods(t, "w2 terminating", "w1 grpc://127.0.0.2:50051")
	srv.Delete("ml", "w2")

	// w1 restarts on the same IP: a new UID, so remove then add.
	oldUID := sink.worker("grpc://127.0.0.2:50051").PodUID
	srv.Delete("ml", "w1")
	srv.Apply(kubeapi.Pod("ml", "w1", "127.0.0.2", vl))
	waitFor(t, "w1 replaced", func() bool {
		w := sink.worker("grpc://127.0.0.2:50051")
		return w.PodUID != "" && w.PodUID != oldUID
	})

	// A dropped watch resumes from its resource version, with no re-list.
	lists := srv.Count("list") + srv.Count("watchlist")
	watches := srv.Count("watch")
	srv.DropWatches()
	waitFor(t, "re-watch", func() bool { return srv.Count("watch") > watches })
	srv.Apply(kubeapi.Pod("ml", "w3", "127.0.0.5", vl))
	sink.waitPods(t, "w3 after re-watch", "w1 grpc://127.0.0.2:50051", "w3 grpc://127.0.0.5:50051")
	if n := srv.Count("list") + srv.Count("watchlist"); n != lists {
		t.Fatalf("a dropped watch caused a re-list (%d lists, were %d)", n, lists)
	}

	// A change without an event, then 410 Gone: only a re-list shows it.
	srv.DeleteSilently("ml", "w3")
	srv.Expire()
	sink.waitPods(t, "after 410", "w1 grpc://127.0.0.2:50051")
	if n := srv.Count("list") + srv.Count("watchlist"); n <= lists {
		t.Fatalf("410 Gone did not cause a re-list")
	}

	// The API server restarts and lost its history; w4 appeared meanwhile.
	lists = srv.Count("list") + srv.Count("watchlist")
	srv.Stop()
	srv.ApplySilently(kubeapi.Pod("ml", "w4", "127.0.0.6", vl))
	srv.ForgetHistory()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	sink.waitPods(t, "after restart", "w1 grpc://127.0.0.2:50051", "w4 grpc://127.0.0.6:50051")
	if n := srv.Count("list") + srv.Count("watchlist"); n <= lists {
		t.Fatalf("a restart that lost the history did not cause a re-list")
	}

	checkAllRequests(t, srv)
	st := d.Status()
	if got := stateCounts(st); got != "invalid=0 not_ready=0 ready=2 terminating=0" {
		t.Fatalf("pod states %s", got)
	}
	calls := strings.Join(sink.calls(), "\n")
	for _, absent := range []string{"unlabelled", "w9"} {
		if strings.Contains(calls, absent) {
			t.Fatalf("pod %s reported:\n%s", absent, calls)
		}
	}
}

// checkFirstRequests: the streaming list first, or a refused streaming
// list then a plain list.
func checkFirstRequests(t *testing.T, srv *kubeapi.Server, noWatchList bool) {
	t.Helper()
	reqs := srv.Requests()
	want := []string{"watchlist"}
	if noWatchList {
		want = []string{"refused", "list", "watch"}
	}
	if len(reqs) < len(want) {
		t.Fatalf("requests %+v, want kinds %q first", reqs, want)
	}
	for i, k := range want {
		if reqs[i].Kind != k {
			t.Fatalf("request %d is %+v, want kinds %q first", i, reqs[i], want)
		}
	}
}

// checkAllRequests: every request was authorised and carried the selector
// and the namespace (not the kubeconfig context's).
func checkAllRequests(t *testing.T, srv *kubeapi.Server) {
	t.Helper()
	for _, r := range srv.Requests() {
		if r.Kind == "unauthorized" || r.Selector != "app=vl" || r.Namespace != "ml" || r.Path != "/api/v1/namespaces/ml/pods" {
			t.Fatalf("request %+v", r)
		}
	}
}

// TestScriptedAllNamespaces: no namespace watches /api/v1/pods, not the
// kubeconfig context's namespace.
func TestScriptedAllNamespaces(t *testing.T) {
	t.Parallel()
	srv, d, sink := startScripted(t, kubeapi.Options{}, "")
	srv.Apply(kubeapi.Pod("a", "w1", "127.0.0.2", vl))
	srv.Apply(kubeapi.Pod("context-namespace", "w2", "127.0.0.3", vl))
	p := kubeapi.Pod("b", "w3", "127.0.0.4", vl)
	kubeapi.Annotate(p, AnnotationPort, "9000")
	srv.Apply(p)
	bad := kubeapi.Pod("b", "w4", "127.0.0.5", vl)
	kubeapi.Annotate(bad, AnnotationRuntime, "triton")
	srv.Apply(bad)
	runDiscovery(t, d)
	sink.waitPods(t, "all namespaces", "w1 grpc://127.0.0.2:50051", "w2 grpc://127.0.0.3:50051", "w3 grpc://127.0.0.4:9000")
	// Relabelled out of the selector: the server sends DELETED.
	srv.Update("context-namespace", "w2", func(p *corev1.Pod) { p.Labels = map[string]string{"app": "other"} })
	sink.waitPods(t, "relabelled", "w1 grpc://127.0.0.2:50051", "w3 grpc://127.0.0.4:9000")
	for _, r := range srv.Requests() {
		if r.Path != "/api/v1/pods" || r.Selector != "app=vl" {
			t.Fatalf("request %+v", r)
		}
	}
	if got := stateCounts(d.Status()); got != "invalid=1 not_ready=0 ready=2 terminating=0" {
		t.Fatalf("pod states %s", got)
	}
}

// TestScriptedBurst: forty pods created in one go, then deleted, converge.
func TestScriptedBurst(t *testing.T) {
	t.Parallel()
	srv, d, sink := startScripted(t, kubeapi.Options{}, "ml")
	runDiscovery(t, d)
	waitFor(t, "first sync", func() bool { return d.Status().Synced })
	var want []string
	for i := range 40 {
		ip := fmt.Sprintf("127.0.1.%d", i+1)
		srv.Apply(kubeapi.Pod("ml", fmt.Sprintf("w%02d", i), ip, vl))
		want = append(want, fmt.Sprintf("w%02d grpc://%s:50051", i, ip))
	}
	sink.waitPods(t, "40 pods", want...)
	for i := range 40 {
		srv.Delete("ml", fmt.Sprintf("w%02d", i))
	}
	sink.waitPods(t, "none")
}

// TestTokenOnlyOverTLS: a kubeconfig token is not used over plain HTTP
// (client-go's rule), so such a server never authorises the client.
func TestTokenOnlyOverTLS(t *testing.T) {
	srv := kubeapi.Start(t, kubeapi.Options{Token: "t0ken"})
	cfg, err := RESTConfig(srv.Kubeconfig(t, t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.BearerToken != "" {
		t.Fatalf("token %q used over plain HTTP", cfg.BearerToken)
	}
	tlsSrv := kubeapi.Start(t, kubeapi.Options{TLS: true, Token: "t0ken"})
	cfg, err = RESTConfig(tlsSrv.Kubeconfig(t, t.TempDir()))
	if err != nil || cfg.BearerToken != "t0ken" || len(cfg.CAData) == 0 {
		t.Fatalf("TLS kubeconfig: %v %+v", err, cfg)
	}
}

// TestScriptedRefused: a client the API server refuses (a wrong token here;
// missing RBAC looks the same) never syncs, reports no worker, and shows
// the failure in Status.
func TestScriptedRefused(t *testing.T) {
	t.Parallel()
	srv := kubeapi.Start(t, kubeapi.Options{TLS: true, Token: "right"})
	kc := srv.Kubeconfig(t, t.TempDir())
	b, err := os.ReadFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kc, []byte(strings.Replace(string(b), `"token":"right"`, `"token":"wrong"`, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.Apply(kubeapi.Pod("ml", "w1", "127.0.0.2", vl))
	sink := newTestSink(t)
	d, err := New(Options{Selector: []string{"app=vl"}, Sink: sink, Kubeconfig: kc})
	if err != nil {
		t.Fatal(err)
	}
	runDiscovery(t, d)
	waitFor(t, "an error in Status", func() bool { return d.Status().Errors > 0 })
	st := d.Status()
	if st.Synced || len(st.Workers) != 0 || !strings.Contains(st.LastError, "Unauthorized") {
		t.Fatalf("status %+v", st)
	}
	if len(sink.calls()) != 0 {
		t.Fatalf("calls %q", sink.calls())
	}
}
