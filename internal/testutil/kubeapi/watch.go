package kubeapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// query is a list or watch request's options.
type query struct {
	ns, rv, match string
	sel           labels.Selector
	watch         bool
	initial       *bool // sendInitialEvents
	bookmarks     bool
	timeout       time.Duration
}

func parseQuery(r *http.Request) (query, error) {
	v := r.URL.Query()
	q := query{ns: r.PathValue("ns"), rv: v.Get("resourceVersion"), match: v.Get("resourceVersionMatch")}
	var err error
	if q.sel, err = labels.Parse(v.Get("labelSelector")); err != nil {
		return q, err
	}
	q.watch = v.Get("watch") == "true" || v.Get("watch") == "1"
	q.bookmarks = v.Get("allowWatchBookmarks") == "true"
	if s := v.Get("sendInitialEvents"); s != "" {
		b := s == "true"
		q.initial = &b
	}
	if s := v.Get("timeoutSeconds"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			return q, err
		}
		q.timeout = time.Duration(n) * time.Second
	}
	return q, nil
}

func (q query) matches(p *corev1.Pod) bool {
	return p != nil && (q.ns == "" || p.Namespace == q.ns) && q.sel.Matches(labels.Set(p.Labels))
}

// pods serves list, watch and the streaming list.
func (s *Server) pods(w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r)
	if err != nil {
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error())
		return
	}
	req := Request{Path: r.URL.Path, Selector: r.URL.Query().Get("labelSelector"), RV: q.rv, Namespace: q.ns}
	switch {
	case s.opts.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.opts.Token:
		s.record(req, "unauthorized")
		writeStatus(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized")
	case !q.watch:
		s.record(req, "list")
		s.list(w, q)
	case q.initial != nil && *q.initial && s.opts.NoWatchList:
		s.record(req, "refused")
		writeStatus(w, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			"ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled")
	case q.initial != nil && *q.initial && q.match != string(metav1.ResourceVersionMatchNotOlderThan):
		s.record(req, "refused")
		writeStatus(w, http.StatusUnprocessableEntity, metav1.StatusReasonInvalid,
			"sendInitialEvents requires setting resourceVersionMatch to NotOlderThan")
	case q.initial != nil && *q.initial:
		s.record(req, "watchlist")
		s.watch(w, r, q)
	default:
		s.record(req, "watch")
		s.watch(w, r, q)
	}
}

func (s *Server) record(req Request, kind string) {
	req.Kind = kind
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
}

func (s *Server) list(w http.ResponseWriter, q query) {
	s.mu.Lock()
	out := corev1.PodList{TypeMeta: metav1.TypeMeta{Kind: "PodList", APIVersion: "v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: strconv.FormatInt(s.store.rv, 10)}, Items: []corev1.Pod{}}
	for _, p := range s.store.pods {
		if q.matches(p) {
			out.Items = append(out.Items, *p.DeepCopy())
		}
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&out)
}

// watch registers a watcher (under the lock, so no change falls between
// its initial events and its stream) and streams to it.
func (s *Server) watch(w http.ResponseWriter, r *http.Request, q query) {
	wt := newWatcher(q)
	var first []watch.Event
	s.mu.Lock()
	st := &s.store
	from, err := strconv.ParseInt(q.rv, 10, 64)
	initial := q.initial != nil && *q.initial || q.rv == "" || q.rv == "0"
	switch {
	case initial:
		for _, p := range st.pods {
			if q.matches(p) {
				first = append(first, watch.Event{Type: watch.Added, Object: p.DeepCopy()})
			}
		}
		if q.initial != nil && *q.initial && q.bookmarks {
			first = append(first, bookmark(st.rv, true))
		}
	case err != nil:
		s.mu.Unlock()
		writeStatus(w, http.StatusBadRequest, metav1.StatusReasonBadRequest, "bad resourceVersion "+q.rv)
		return
	case from < st.minRV:
		first = append(first, watch.Event{Type: watch.Error, Object: gone("too old resource version: " + q.rv)})
		wt.close(nil)
	default:
		for _, c := range st.history {
			if c.rv > from {
				wt.offer(c)
			}
		}
	}
	if !wt.closed() {
		s.watchers[wt] = struct{}{}
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.watchers, wt)
		s.mu.Unlock()
	}()
	wt.stream(w, r, first)
}

func bookmark(rv int64, initialEnd bool) watch.Event {
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{ResourceVersion: strconv.FormatInt(rv, 10)}}
	if initialEnd {
		p.Annotations = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	return watch.Event{Type: watch.Bookmark, Object: p}
}

// watcher is one open watch: the changes offered to it, filtered through
// its selector, wait in a queue until its stream writes them.
type watcher struct {
	q      query
	mu     sync.Mutex
	queue  []watch.Event
	wake   chan struct{}
	done   bool
	reason *metav1.Status // sent as an ERROR event before the end
}

func newWatcher(q query) *watcher { return &watcher{q: q, wake: make(chan struct{}, 1)} }

// offer queues c as the event this watcher sees: a pod that stops
// matching is DELETED for it, one that starts matching ADDED.
func (w *watcher) offer(c change) {
	now, was := w.q.matches(c.obj), w.q.matches(c.old)
	var ev watch.Event
	switch {
	case c.typ == watch.Deleted && was:
		ev = watch.Event{Type: watch.Deleted, Object: c.obj}
	case c.typ == watch.Deleted:
		return
	case now && was:
		ev = watch.Event{Type: watch.Modified, Object: c.obj.DeepCopy()}
	case now:
		ev = watch.Event{Type: watch.Added, Object: c.obj.DeepCopy()}
	case was:
		prev := c.old.DeepCopy()
		prev.ResourceVersion = c.obj.ResourceVersion
		ev = watch.Event{Type: watch.Deleted, Object: prev}
	default:
		return
	}
	w.push(ev)
}

func (w *watcher) push(ev watch.Event) {
	w.mu.Lock()
	w.queue = append(w.queue, ev)
	w.mu.Unlock()
	w.signal()
}

func (w *watcher) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// close ends the watch after what is queued, with an ERROR event first
// when reason is set.
func (w *watcher) close(reason *metav1.Status) {
	w.mu.Lock()
	w.done, w.reason = true, reason
	w.mu.Unlock()
	w.signal()
}

func (w *watcher) closed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.done
}

// stream writes the first events, then the queue, flushing each event,
// until the watch is closed, times out or the client goes.
func (w *watcher) stream(rw http.ResponseWriter, r *http.Request, first []watch.Event) {
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Transfer-Encoding", "chunked")
	rw.WriteHeader(http.StatusOK)
	fl, _ := rw.(http.Flusher)
	enc := json.NewEncoder(rw)
	send := func(ev watch.Event) bool {
		raw, err := json.Marshal(ev.Object)
		if err != nil {
			return false
		}
		if err := enc.Encode(metav1.WatchEvent{Type: string(ev.Type), Object: runtime.RawExtension{Raw: raw}}); err != nil {
			return false
		}
		if fl != nil {
			fl.Flush()
		}
		return true
	}
	for _, ev := range first {
		if !send(ev) {
			return
		}
	}
	if fl != nil {
		fl.Flush()
	}
	var timeout <-chan time.Time
	if w.q.timeout > 0 {
		t := time.NewTimer(w.q.timeout)
		defer t.Stop()
		timeout = t.C
	}
	for {
		w.mu.Lock()
		queue, done, reason := w.queue, w.done, w.reason
		w.queue = nil
		w.mu.Unlock()
		for _, ev := range queue {
			if !send(ev) {
				return
			}
		}
		if done {
			if reason != nil {
				send(watch.Event{Type: watch.Error, Object: reason})
			}
			return
		}
		select {
		case <-w.wake:
		case <-timeout:
			return
		case <-r.Context().Done():
			return
		}
	}
}
