package kubeapi

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type rawEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// openWatch starts a watch and returns a function reading its next event.
func openWatch(t *testing.T, url string) (next func() (string, *corev1.Pod, *metav1.Status), closeFn func()) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch %s: %s", url, resp.Status)
	}
	dec := json.NewDecoder(bufio.NewReader(resp.Body))
	next = func() (string, *corev1.Pod, *metav1.Status) {
		t.Helper()
		var ev rawEvent
		if err := dec.Decode(&ev); err != nil {
			return "EOF", nil, nil
		}
		if ev.Type == "ERROR" {
			st := &metav1.Status{}
			if err := json.Unmarshal(ev.Object, st); err != nil {
				t.Fatal(err)
			}
			return ev.Type, nil, st
		}
		p := &corev1.Pod{}
		if err := json.Unmarshal(ev.Object, p); err != nil {
			t.Fatal(err)
		}
		return ev.Type, p, nil
	}
	return next, func() { resp.Body.Close() }
}

func TestWatchSemantics(t *testing.T) {
	s := Start(t, Options{})
	a := s.Apply(Pod("ns", "a", "10.0.0.1", map[string]string{"app": "x"}))
	if a.UID == "" || a.ResourceVersion != "101" || a.Kind != "Pod" {
		t.Fatalf("stored pod %+v", a.ObjectMeta)
	}
	base := s.URL() + "/api/v1/namespaces/ns/pods?labelSelector=app%3Dx"

	// The streaming list: initial ADDED, then the initial-events-end bookmark.
	next, stop := openWatch(t, base+"&watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true")
	defer stop()
	if typ, p, _ := next(); typ != "ADDED" || p.Name != "a" {
		t.Fatalf("first event %s %v", typ, p)
	}
	if typ, p, _ := next(); typ != "BOOKMARK" || p.Annotations[metav1.InitialEventsAnnotationKey] != "true" || p.ResourceVersion != "101" {
		t.Fatalf("second event %s %+v", typ, p)
	}
	// Selector transitions.
	s.Update("ns", "a", func(p *corev1.Pod) { p.Labels["app"] = "y" })
	if typ, p, _ := next(); typ != "DELETED" || p.Name != "a" || p.ResourceVersion != "102" {
		t.Fatalf("relabelled out: %s %+v", typ, p)
	}
	s.Apply(Pod("ns", "ignored", "10.0.0.3", map[string]string{"app": "y"}))
	s.Update("ns", "a", func(p *corev1.Pod) { p.Labels["app"] = "x" })
	if typ, p, _ := next(); typ != "ADDED" || p.Name != "a" {
		t.Fatalf("relabelled in: %s %+v", typ, p)
	}
	s.Terminate("ns", "a")
	if typ, p, _ := next(); typ != "MODIFIED" || p.DeletionTimestamp == nil {
		t.Fatalf("terminate: %s %+v", typ, p)
	}
	s.Delete("ns", "a")
	if typ, p, _ := next(); typ != "DELETED" || p.Name != "a" {
		t.Fatalf("delete: %s %+v", typ, p)
	}
	// Expire ends the watch with 410 Gone.
	s.Expire()
	if typ, _, st := next(); typ != "ERROR" || st.Code != http.StatusGone || st.Reason != metav1.StatusReasonExpired {
		t.Fatalf("expire: %s %+v", typ, st)
	}
	if typ, _, _ := next(); typ != "EOF" {
		t.Fatalf("after 410: %s", typ)
	}
	// A watch from before the compaction gets 410 at once; from now, events.
	next2, stop2 := openWatch(t, base+"&watch=true&resourceVersion=101")
	defer stop2()
	if typ, _, st := next2(); typ != "ERROR" || st.Code != http.StatusGone {
		t.Fatalf("old rv: %s %+v", typ, st)
	}
	rv := s.Apply(Pod("ns", "b", "10.0.0.2", map[string]string{"app": "x"})).ResourceVersion
	next3, stop3 := openWatch(t, base+"&watch=true&resourceVersion=106")
	defer stop3()
	if typ, p, _ := next3(); typ != "ADDED" || p.Name != "b" || p.ResourceVersion != rv {
		t.Fatalf("replay: %s %+v", typ, p)
	}
	// A dropped watch ends cleanly.
	s.DropWatches()
	done := make(chan string, 1)
	go func() { typ, _, _ := next3(); done <- typ }()
	select {
	case typ := <-done:
		if typ != "EOF" {
			t.Fatalf("after drop: %s", typ)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("dropped watch still open")
	}
}

func TestListAndRefusals(t *testing.T) {
	s := Start(t, Options{NoWatchList: true, Token: "tok"})
	s.Apply(Pod("ns", "a", "10.0.0.1", map[string]string{"app": "x"}))
	s.Apply(Pod("other", "b", "10.0.0.2", map[string]string{"app": "x"}))
	get := func(path, token string) (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		return http.DefaultClient.Do(req)
	}
	resp, err := get("/api/v1/pods?labelSelector=app%3Dx", "wrong")
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("wrong token: %v %v", resp.Status, err)
	}
	resp.Body.Close()
	resp, err = get("/api/v1/pods?labelSelector=app%3Dx", "tok")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("list: %v %v", resp, err)
	}
	var list corev1.PodList
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Items) != 2 || list.ResourceVersion != "102" {
		t.Fatalf("list %+v %v", list, err)
	}
	resp.Body.Close()
	resp, err = get("/api/v1/namespaces/ns/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", "tok")
	if err != nil || resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("watchlist on a server without it: %v %v", resp.Status, err)
	}
	resp.Body.Close()
	kinds := []string{}
	for _, r := range s.Requests() {
		kinds = append(kinds, r.Kind)
	}
	if got := strings.Join(kinds, ","); got != "unauthorized,list,refused" {
		t.Fatalf("requests %s", got)
	}
}
