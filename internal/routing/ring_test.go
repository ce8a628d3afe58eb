package routing

import (
	"fmt"
	"testing"
)

func TestRing(t *testing.T) {
	if _, ok := NewRing(nil).Find("k", nil); ok {
		t.Fatal("empty ring found a worker")
	}
	urls := []string{"grpc://10.0.0.1:50051", "grpc://10.0.0.2:50051", "grpc://10.0.0.3:50051"}
	r := NewRing(append(urls, urls[0])) // a duplicate adds nothing
	if len(r.points) != 3*VirtualNodes || r.urls != 3 {
		t.Fatalf("%d points for %d urls", len(r.points), r.urls)
	}
	keys := make([]string, 3000)
	for i := range keys {
		keys[i] = fmt.Sprintf("session-%d", i)
	}
	owner := map[string]string{}
	count := map[string]int{}
	for _, k := range keys {
		u, ok := r.Find(k, nil)
		if !ok {
			t.Fatal("no worker")
		}
		if again, _ := NewRing(urls).Find(k, nil); again != u {
			t.Fatalf("key %s: %s, then %s from an identical ring", k, u, again)
		}
		owner[k] = u
		count[u]++
	}
	for _, u := range urls {
		if count[u] < 600 { // 1000 expected; 150 virtual nodes keep it near
			t.Fatalf("uneven spread %v", count)
		}
	}
	// A fourth worker takes about a quarter of the keys and moves no other.
	grown := NewRing(append(urls, "grpc://10.0.0.4:50051"))
	moved := 0
	for _, k := range keys {
		u, _ := grown.Find(k, nil)
		if u != owner[k] {
			if u != "grpc://10.0.0.4:50051" {
				t.Fatalf("key %s moved between old workers", k)
			}
			moved++
		}
	}
	if moved < 450 || moved > 1050 {
		t.Fatalf("%d of 3000 keys moved to the new worker", moved)
	}
	// An unusable worker's keys go to the next usable one clockwise; the
	// others stay.
	down := urls[1]
	for _, k := range keys {
		u, ok := r.Find(k, func(u string) bool { return u != down })
		if !ok || u == down || owner[k] != down && u != owner[k] {
			t.Fatalf("key %s: %s (owner %s)", k, u, owner[k])
		}
	}
	if _, ok := r.Find("k", func(string) bool { return false }); ok {
		t.Fatal("found a worker when none is usable")
	}
}

func TestRoutingKey(t *testing.T) {
	for _, tc := range [][3]string{{"s1", "hello", "s1"}, {"", "hello", "hello"}, {"", "", ""}} {
		if got := RoutingKey(tc[0], tc[1]); got != tc[2] {
			t.Errorf("RoutingKey(%q, %q) = %q", tc[0], tc[1], got)
		}
	}
}
