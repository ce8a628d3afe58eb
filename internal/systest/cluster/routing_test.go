package cluster

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/mmgate/mmgate/internal/testutil/procs"
	"github.com/mmgate/mmgate/internal/tools/synth"
)

// jpegData is a w×h synthetic JPEG (seed varies it) as a data: URL.
func jpegData(t *testing.T, w, h, seed int) string {
	t.Helper()
	b, err := synth.JPEG(w, h, seed)
	if err != nil {
		t.Fatal(err)
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b)
}

// turn is one request of an image conversation: the worker that served
// it, its prompt tokens and how many of them it reported cached.
type turn struct {
	worker         string
	prompt, cached int64
}

// conversations sends, one request at a time, n image conversations
// (each with its own image) of turns turns, each resending the history,
// with the gateway's given flags over two reference workers; it returns
// each conversation's turns.
func conversations(t *testing.T, n, turns int, flags ...string) [][]turn {
	t.Helper()
	shm := procs.ShmDir(t, "mmgate-cluster-")
	w1, _ := procs.Worker(t, binary, shm, "--model", modelDir)
	w2, _ := procs.Worker(t, binary, shm, "--model", modelDir)
	url, p := gateway(t, shm, append(flags, "--worker", w1, "--worker", w2)...)
	procs.WaitFor(t, p, func() bool { return procs.Ready(url + "/health/ready") }, "gateway ready")
	g := newGW(url, p)
	out := make([][]turn, n)
	for c := range n {
		history := []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
			openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: jpegData(t, 512, 512, c+1)}),
			openai.TextContentPart("What is in this picture?"),
		})}
		for k := range turns {
			rid := g.rid(fmt.Sprintf("conv%d-turn%d", c, k))
			resp, err := g.chat(t, rid, openai.ChatCompletionNewParams{Model: model, Messages: history, MaxTokens: openai.Int(16)})
			if err != nil {
				t.Fatalf("%s: %v", rid, err)
			}
			tr := turn{worker: g.servedBy(t, rid), prompt: resp.Usage.PromptTokens, cached: resp.Usage.PromptTokensDetails.CachedTokens}
			t.Logf("%s: %s, %d of %d prompt tokens cached", rid, tr.worker, tr.cached, resp.Usage.PromptTokens)
			out[c] = append(out[c], tr)
			history = append(history, openai.AssistantMessage(resp.Choices[0].Message.Content),
				openai.UserMessage(fmt.Sprintf("And what else? (%d)", k)))
		}
	}
	return out
}

// With cache_aware, every follow-up turn of an image conversation goes to
// the worker that served its first turn (whose cache holds it), and new
// conversations spread over the workers.
func TestCacheAwareConversations(t *testing.T) {
	perWorker := map[string]int{}
	for c, turns := range conversations(t, 8, 3, "--policy", "cache_aware") {
		first := turns[0].worker
		perWorker[first]++
		if turns[0].cached != 0 {
			t.Errorf("conversation %d: a new conversation's image was cached (%d tokens)", c, turns[0].cached)
		}
		for k, tr := range turns[1:] {
			if tr.worker != first {
				t.Fatalf("conversation %d turn %d went to %s; its first turn went to %s", c, k+1, tr.worker, first)
			}
			if tr.cached == 0 {
				t.Errorf("conversation %d turn %d: the worker holding the conversation reports nothing cached", c, k+1)
			}
		}
	}
	if len(perWorker) != 2 {
		t.Fatalf("conversations per worker %v: both workers should get some", perWorker)
	}
}

// The counter-check of TestCacheAwareConversations: with least_loaded,
// the same conversations sent one request at a time find both workers
// idle, the tie rotates, and follow-up turns leave the worker that holds
// their conversation; one that lands on a worker new to the conversation
// finds at most the template's first tokens cached, never its image.
func TestLeastLoadedConversationsMove(t *testing.T) {
	moved := 0
	for c, turns := range conversations(t, 8, 3, "--policy", "least_loaded") {
		seen := map[string]bool{turns[0].worker: true}
		for k, tr := range turns[1:] {
			if tr.worker != turns[0].worker {
				moved++
			}
			if !seen[tr.worker] && 2*tr.cached >= turns[0].prompt {
				t.Errorf("conversation %d turn %d: %s never served it yet reports %d of the first turn's %d tokens cached",
					c, k+1, tr.worker, tr.cached, turns[0].prompt)
			}
			seen[tr.worker] = true
		}
	}
	if moved == 0 {
		t.Fatal("every follow-up stayed on its first turn's worker under least_loaded: the cache_aware test would prove nothing")
	}
}
