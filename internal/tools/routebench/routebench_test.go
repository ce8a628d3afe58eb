package routebench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A conversation sends the whole history each turn and reads the usage;
// a failed turn ends it.
func TestConversation(t *testing.T) {
	var seen []int // messages per request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string    `json:"model"`
			Messages []message `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "m" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		seen = append(seen, len(req.Messages))
		if len(seen) == 3 {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"message":"no healthy worker","code":"no_worker"}}`)
			return
		}
		fmt.Fprintf(w, `{"choices":[{"message":{"content":"answer %d"}}],"usage":{"prompt_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}}}`,
			len(seen), 100*len(seen), 80*(len(seen)-1))
	}))
	defer srv.Close()
	ts := conversation(context.Background(), srv.Client(), srv.URL, "m", "data:image/jpeg;base64,AAAA", 4, 8)
	if fmt.Sprint(seen) != "[1 3 5]" {
		t.Fatalf("messages per request %v, want [1 3 5]", seen)
	}
	if len(ts) != 3 || ts[0].prompt != 100 || ts[0].cached != 0 || ts[1].prompt != 200 || ts[1].cached != 80 || ts[1].index != 1 {
		t.Fatalf("turns %+v", ts)
	}
	if ts[2].err == nil {
		t.Fatal("the failed turn has no error")
	}
}

func TestSummarize(t *testing.T) {
	ms := time.Millisecond
	turns := []turn{
		{index: 0, latency: 100 * ms, prompt: 300},
		{index: 1, latency: 20 * ms, prompt: 340, cached: 288},
		{index: 2, latency: 30 * ms, prompt: 380, cached: 336},
		{index: 0, latency: 90 * ms, prompt: 300},
		{index: 1, err: errors.New("boom")},
	}
	r := summarize("cache_aware", &Config{Workers: 2, Conversations: 2, Turns: 3}, turns, time.Second)
	if r.Requests != 5 || r.Errors != 1 || r.FirstError != "boom" || r.PromptTokens != 1320 || r.CachedTokens != 624 {
		t.Fatalf("%+v", r)
	}
	if r.HitRate != 0.4727 || r.FollowUpHitRate != 0.8667 {
		t.Fatalf("hit rates %v %v", r.HitRate, r.FollowUpHitRate)
	}
	if r.FirstTurnMS.N != 2 || r.FirstTurnMS.P50 != 90 || r.FirstTurnMS.Max != 100 || r.FollowUpMS.P99 != 30 {
		t.Fatalf("latencies %+v %+v", r.FirstTurnMS, r.FollowUpMS)
	}
}

func TestDefaults(t *testing.T) {
	c := Config{Binary: "mmgate"}
	if err := c.defaults(); err != nil || c.Workers != 4 || len(c.Policies) != 3 || c.PrefillRate != 5000 {
		t.Fatalf("%+v %v", c, err)
	}
	if err := (&Config{}).defaults(); err == nil {
		t.Fatal("no binary accepted")
	}
	if err := (&Config{Binary: "x", Turns: -1}).defaults(); err == nil {
		t.Fatal("negative turns accepted")
	}
}

// Shorten sets the quick run's sizes except those given.
func TestShorten(t *testing.T) {
	c := Config{Workers: 7, Conversations: 9, Turns: 5, Concurrency: 6}
	c.Shorten(func(name string) bool { return name == "turns" })
	sh := Short()
	if c.Workers != sh.Workers || c.Conversations != sh.Conversations || c.Turns != 5 || c.Concurrency != sh.Concurrency {
		t.Errorf("shortened: %+v", c)
	}
}
