package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3/option"
	corev1 "k8s.io/api/core/v1"

	"github.com/mmgate/mmgate/internal/testutil/kubeapi"
	"github.com/mmgate/mmgate/internal/testutil/procs"
)

const ns = "inference"

var workerLabels = map[string]string{"app": "vl-worker", "tier": "gpu"}

// cluster is the scripted API server, its pods' worker processes and the
// gateway watching it.
type cluster struct {
	api   *kubeapi.Server
	port  int
	shm   string
	procs map[string]*procs.Proc // by pod name
	g     *gw
}

// url is the worker URL of the pod on ip.
func (c *cluster) url(ip string) string { return "grpc://" + ip + ":" + strconv.Itoa(c.port) }

// pod starts the worker of a pod on ip and applies the pod (Ready or not,
// with labels).
func (c *cluster) pod(t *testing.T, name, ip string, ready bool, labels map[string]string, extra ...string) {
	t.Helper()
	c.procs[name] = podWorker(t, ip, c.port, c.shm, extra...)
	p := kubeapi.Pod(ns, name, ip, labels)
	kubeapi.SetReady(p, ready)
	c.api.Apply(p)
}

func (c *cluster) setReady(name string, ready bool) {
	c.api.Update(ns, name, func(p *corev1.Pod) { kubeapi.SetReady(p, ready) })
}

// discovered are the worker URLs the gateway's discovery reports, by
// state (from /health/ready's details).
func (c *cluster) discovered(t *testing.T) map[string]string {
	t.Helper()
	r, err := http.Get(c.g.url + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var body struct {
		Discovery struct {
			Synced  bool `json:"synced"`
			Workers []struct {
				URL   string `json:"url"`
				State string `json:"state"`
			} `json:"workers"`
		} `json:"discovery"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, w := range body.Discovery.Workers {
		out[w.URL] = w.State
	}
	return out
}

// never records every worker that served a request and checks none of
// them is a worker that must never be used.
type served struct {
	mu    sync.Mutex
	all   []string
	never map[string]string // url → why
}

func (s *served) add(t *testing.T, url string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if why, bad := s.never[url]; bad {
		t.Fatalf("a request went to %s (%s)", url, why)
	}
	s.all = append(s.all, url)
	return url
}

func TestDiscovery(t *testing.T) {
	shm := procs.ShmDir(t, "mmgate-cluster-")
	ips := []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"}
	c := &cluster{api: kubeapi.Start(t, kubeapi.Options{}), port: commonPort(t, ips...), shm: shm, procs: map[string]*procs.Proc{}}
	kc := c.api.Kubeconfig(t, t.TempDir())
	url, p := gateway(t, shm, "--service-discovery", "--selector", "app=vl-worker", "--selector", "tier=gpu",
		"--service-discovery-namespace", ns, "--service-discovery-port", strconv.Itoa(c.port), "--kubeconfig", kc, "--log-level", "debug")
	c.g = newGW(url, p)
	g := c.g
	s := &served{never: map[string]string{}}

	// No pod: the model (the --model folder's) is known, no worker
	// serves it: 503 no_worker.
	if _, err := g.chat(t, g.rid("none"), textParams("hi", 4)); err == nil {
		t.Fatal("a request succeeded with no worker")
	} else if st, code := status(err); st != http.StatusServiceUnavailable || code != "no_worker" {
		t.Fatalf("no worker: %d %s", st, code)
	}

	// A Ready pod is used; a matching pod that is not Ready and a Ready
	// pod that does not match are not.
	c.pod(t, "worker-a", ips[0], true, workerLabels, "--token-delay", "20ms")
	c.pod(t, "worker-c", ips[2], false, workerLabels)
	c.pod(t, "other-d", ips[3], true, map[string]string{"app": "vl-worker", "tier": "cpu"})
	s.never[c.url(ips[2])] = "a matching pod that is not Ready"
	s.never[c.url(ips[3])] = "a pod that does not match the selector"
	eventually(t, 15*time.Second, "the Ready pod serves", func() bool { return g.ready() == http.StatusOK })
	for range 4 {
		if w := s.add(t, g.text(t, "a")); w != c.url(ips[0]) {
			t.Fatalf("served by %s, want the only Ready pod", w)
		}
	}

	// A pod that becomes Ready is used within seconds.
	c.pod(t, "worker-b", ips[1], false, workerLabels, "--token-delay", "20ms")
	c.setReady("worker-b", true)
	took := eventually(t, 10*time.Second, "the newly Ready pod serves a request", func() bool {
		return s.add(t, g.text(t, "b")) == c.url(ips[1])
	})
	t.Logf("newly Ready pod used after %v", took.Round(time.Millisecond))

	deletePod(t, c, s, ips)
	noneReady(t, c, s, ips)
	restart(t, c, s, ips)

	// client-go's own lines (klog) come out through the gateway's logger.
	log := g.p.Stderr.String()
	if !contains(log, `msg="Caches populated"`) {
		t.Error("client-go's reflector lines are not in the gateway's log")
	}
	if l := klogFormat.FindString(log); l != "" {
		t.Errorf("a line in klog's own format: %q", l)
	}
}

// klogFormat matches a line klog writes itself ("I1201 16:36:47.988 ...").
var klogFormat = regexp.MustCompile(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d.*$`)

// deletePod deletes worker-a while requests stream from it: they finish;
// once the gateway has dropped it its process is killed, and no request
// goes to it or fails.
func deletePod(t *testing.T, c *cluster, s *served, ips []string) {
	t.Helper()
	g := c.g
	type result struct {
		rid string
		n   int
		err error
	}
	results := make(chan result, 2)
	started := make(chan struct{}, 2)
	for i := range 2 { // least loaded: one lands on each worker
		rid := g.rid("slow")
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			st := g.c.Chat.Completions.NewStreaming(ctx, textParams(fmt.Sprint("Tell me a story ", i), 60), option.WithHeader("X-Request-Id", rid))
			n := 0
			for st.Next() {
				if n == 0 {
					started <- struct{}{}
				}
				n++
			}
			results <- result{rid, n, st.Err()}
		}()
		<-started
	}
	c.api.Terminate(ns, "worker-a")
	c.api.Delete(ns, "worker-a")
	a := c.url(ips[0])
	onA := 0
	for range 2 {
		r := <-results
		if r.err != nil || r.n < 10 {
			t.Fatalf("stream %s in flight during the deletion: %d chunks, %v", r.rid, r.n, r.err)
		}
		if s.add(t, g.servedBy(t, r.rid)) == a {
			onA++
		}
	}
	if onA != 1 {
		t.Fatalf("%d of the two streams were on worker-a, want 1", onA)
	}
	eventually(t, 10*time.Second, "the deleted pod's worker removed", func() bool { _, ok := c.discovered(t)[a]; return !ok })
	c.procs["worker-a"].Kill()
	s.never[a] = "its pod was deleted"
	for range 6 {
		s.add(t, g.text(t, "after-delete"))
	}
}

// noneReady: with no Ready pod requests get 503 no_worker, and 200 again
// once one is Ready.
func noneReady(t *testing.T, c *cluster, s *served, ips []string) {
	t.Helper()
	g := c.g
	c.setReady("worker-b", false)
	eventually(t, 10*time.Second, "no Ready pod: 503 no_worker", func() bool {
		_, err := g.chat(t, g.rid("unready"), textParams("hi", 4))
		st, code := status(err)
		return err != nil && st == http.StatusServiceUnavailable && code == "no_worker"
	})
	c.setReady("worker-b", true)
	eventually(t, 10*time.Second, "a Ready pod again: 200", func() bool {
		rid := g.rid("reready")
		if _, err := g.chat(t, rid, textParams("hi", 4)); err != nil {
			return false
		}
		s.add(t, g.servedBy(t, rid))
		return true
	})
}

// restart: the API server goes away; while it is down worker-b's pod is
// deleted and worker-e's created (history lost, as a restarted server's
// watch cache is); once it is back the gateway converges: worker-e serves,
// worker-b never again.
func restart(t *testing.T, c *cluster, s *served, ips []string) {
	t.Helper()
	g := c.g
	e := podWorker(t, ips[4], c.port, c.shm)
	c.procs["worker-e"] = e
	c.api.Stop()
	c.api.DeleteSilently(ns, "worker-b")
	c.api.ApplySilently(kubeapi.Pod(ns, "worker-e", ips[4], workerLabels))
	c.api.ForgetHistory()
	time.Sleep(1500 * time.Millisecond)
	if err := c.api.Start(); err != nil {
		t.Fatal(err)
	}
	b, eURL := c.url(ips[1]), c.url(ips[4])
	took := eventually(t, 30*time.Second, "the worker set converges after the restart", func() bool {
		d := c.discovered(t)
		_, hasB := d[b]
		return !hasB && d[eURL] == "healthy"
	})
	t.Logf("converged %v after the API server came back", took.Round(time.Millisecond))
	s.never[b] = "its pod was deleted while the API server was down"
	for range 4 {
		if w := s.add(t, g.text(t, "after-restart")); w != eURL {
			t.Fatalf("served by %s after the restart, want worker-e", w)
		}
	}
	body, err := procs.Metrics(g.url)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`mmgate_workers{state="healthy"} 1`, `mmgate_discovery_pods{state="ready"} 1`,
		`mmgate_discovery_pods{state="not_ready"} 1`, `mmgate_discovery_synced 1`} {
		if !contains(body, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
